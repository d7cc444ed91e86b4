'use client';

import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "following the newest". */
const STICK_THRESHOLD_PX = 24;
/** A scroll this soon after a wheel, touch, key or pointer press is the user's; any other is layout or code. */
const INTENT_WINDOW_MS = 400;

/**
 * Sticky auto-scroll for a list whose newest items arrive at the bottom (or, with `edge: 'top'`, at the top, for a
 * list shown newest first): while following, growth (`contentKey`
 * changes: item count, total height) keeps it at the bottom; once the user scrolls up it stays put until they come
 * back down or call `scrollToNewest`. Only user-initiated scrolls unstick: a virtualiser re-measuring rows also
 * moves the scroll position, and that must not be mistaken for the reader leaving.
 * Spread `scrollProps` on the scrolling element, and give it `overflow-anchor: none`.
 */
export function useStickyScroll(scrollRef: RefObject<HTMLElement | null>, contentKey: unknown, edge: 'bottom' | 'top' = 'bottom') {
  const stickRef = useRef(true);
  const intentUntil = useRef(0);
  const pointerDown = useRef(false);
  const [following, setFollowing] = useState(true);

  const setStick = useCallback((value: boolean) => {
    stickRef.current = value;
    setFollowing(value);
  }, []);

  /** Whether a scroll now is the reader's: within the intent window of a wheel, touch or key, or while dragging. */
  const byReader = useCallback(() => pointerDown.current || Date.now() < intentUntil.current, []);

  const toBottom = useCallback(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = edge === 'top' ? 0 : el.scrollHeight;
  }, [scrollRef, edge]);

  useEffect(() => {
    const el = scrollRef.current;
    if (!el || !stickRef.current) return;
    // A resize observer reports right after the browser's own layout, when reading the height is free; a layout
    // effect would force an extra page layout on every update, which under load is most of the main thread.
    // It reports each observed element once on start (this update) and again whenever the content or box resizes.
    let retry: ReturnType<typeof setTimeout> | undefined;
    const follow = () => {
      retry = undefined;
      if (!stickRef.current) return;
      // Not while the reader is scrolling: their scroll event may still be on its way, and snapping back first
      // would swallow it. Once they stop, if they are still following, catch up.
      if (byReader()) retry ??= setTimeout(follow, INTENT_WINDOW_MS);
      else toBottom();
    };
    const observer = new ResizeObserver(follow);
    observer.observe(el); // the box shrinking, too, would leave the newest rows below the fold
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => {
      observer.disconnect();
      if (retry !== undefined) clearTimeout(retry);
    };
  }, [scrollRef, toBottom, byReader, contentKey]);

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
        // Only the reader's scrolls change what is followed. Ours (and the virtualiser's) are not read at all:
        // reading the position forces a layout, and they come several times a second under load. The browser's
        // own scroll anchoring, the one other mover, is off on these lists (`overflow-anchor: none`).
        const el = scrollRef.current;
        if (!el || !byReader()) return;
        const atBottom = edge === 'top' ? el.scrollTop <= STICK_THRESHOLD_PX : el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_THRESHOLD_PX;
        if (atBottom !== stickRef.current) setStick(atBottom);
      },
    };
  }, [scrollRef, setStick, byReader, edge]);

  const scrollToNewest = useCallback(() => {
    setStick(true);
    toBottom();
  }, [setStick, toBottom]);

  /** Stop following (before jumping to an older item, or opening one to read). */
  const release = useCallback(() => setStick(false), [setStick]);

  // After each render while following, pin to the newest once in the next frame: rows a virtualiser measures taller
  // than it estimated grow the scrollable height without resizing its sized inner box, which the observer above
  // would not report. One scroll write a frame at most, and only while following.
  const frame = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!stickRef.current || frame.current !== undefined) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = undefined;
      if (stickRef.current && !byReader()) toBottom();
    });
  });
  useEffect(
    () => () => {
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
    },
    [],
  );

  return { following, scrollProps, scrollToNewest, release };
}
