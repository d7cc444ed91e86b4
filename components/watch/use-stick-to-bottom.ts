'use client';

import { useEffect, useRef, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "at the bottom". */
const AT_BOTTOM_PX = 24;

/** Keeps a small scroll box at its bottom as `contentKey` grows, unless the reader had scrolled up. */
export function useStickToBottom(ref: RefObject<HTMLElement | null>, contentKey: unknown): void {
  const wasAtBottom = useRef(true);
  useEffect(() => {
    const el = ref.current; // rendered only while open, so looked up again on each change
    if (!el) return;
    const onScroll = () => {
      wasAtBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= AT_BOTTOM_PX;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    // Scrolls after the browser's next layout (a resize observer's first report), when reading the height is
    // free, rather than forcing a layout of its own.
    const observer = new ResizeObserver(() => {
      observer.disconnect();
      if (wasAtBottom.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', onScroll);
    };
  }, [ref, contentKey]);
}
