'use client';

import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "following the newest". */
const STICK_THRESHOLD_PX = 24;
/** A scroll this soon after a wheel, touch, key or pointer press is the user's; any other is layout or code. */
const INTENT_WINDOW_MS = 400;

/**
 * Sticky auto-scroll for a list whose newest items arrive at the bottom: while following, growth (`contentKey`
 * changes: item count, total height) keeps it at the bottom; once the user scrolls up it stays put until they come
 * back down or call `scrollToNewest`. Only user-initiated scrolls unstick: a virtualiser re-measuring rows also
 * moves the scroll position, and that must not be mistaken for the reader leaving.
 * Spread `scrollProps` on the scrolling element.
 */
export function useStickyScroll(scrollRef: RefObject<HTMLElement | null>, contentKey: unknown) {
  const stickRef = useRef(true);
  const intentUntil = useRef(0);
  const pointerDown = useRef(false);
  const [following, setFollowing] = useState(true);

  const setStick = useCallback((value: boolean) => {
    stickRef.current = value;
    setFollowing(value);
  }, []);

  const toBottom = useCallback(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [scrollRef]);

  useEffect(() => {
    const el = scrollRef.current;
    if (!el || !stickRef.current) return;
    // A resize observer reports right after the browser's own layout, when reading the height is free; a layout
    // effect would force an extra page layout on every update, which under load is most of the main thread.
    // It reports each observed element once on start (this update) and again whenever the content grows.
    const observer = new ResizeObserver(() => {
      if (stickRef.current) toBottom();
    });
    observer.observe(el.firstElementChild ?? el);
    return () => observer.disconnect();
  }, [scrollRef, toBottom, contentKey]);

  const scrollProps = useMemo(() => {
    const intent = () => {
      intentUntil.current = Date.now() + INTENT_WINDOW_MS;
    };
    return {
      onWheel: intent,
      onTouchMove: intent,
      onKeyDown: intent,
      onPointerDown: () => {
        pointerDown.current = true; // dragging the scrollbar
        intent();
      },
      onPointerUp: () => {
        pointerDown.current = false;
      },
      onScroll: () => {
        const el = scrollRef.current;
        if (!el) return;
        const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_THRESHOLD_PX;
        const byUser = pointerDown.current || Date.now() < intentUntil.current;
        if (atBottom) {
          if (!stickRef.current && byUser) setStick(true);
        } else if (stickRef.current) {
          if (byUser) setStick(false);
          else toBottom(); // content moved under a follower: stay on the newest
        }
      },
    };
  }, [scrollRef, setStick, toBottom]);

  const scrollToNewest = useCallback(() => {
    setStick(true);
    toBottom();
  }, [setStick, toBottom]);

  /** Stop following (before jumping to an older item, or opening one to read). */
  const release = useCallback(() => setStick(false), [setStick]);

  return { following, scrollProps, scrollToNewest, release };
}

/** A virtualiser's `shouldAdjustScrollPositionOnItemSizeChange` for while a sticky list follows its newest rows. */
export const neverAdjust = () => false;
