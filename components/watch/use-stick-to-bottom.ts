'use client';

import { useLayoutEffect, useRef, type RefObject } from 'react';

/** Keeps a small scroll box at its bottom as `contentKey` grows, unless the reader had scrolled up. */
export function useStickToBottom(ref: RefObject<HTMLElement | null>, contentKey: unknown): void {
  const wasAtBottom = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (wasAtBottom.current) el.scrollTop = el.scrollHeight;
    const onScroll = () => {
      wasAtBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= 24;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [ref, contentKey]);
}
