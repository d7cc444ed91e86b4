'use client';

import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { measureFromResizeObserver } from '@/components/ui/measure-from-resize-observer';
import { useStickyScroll } from './use-sticky-scroll';

/** While following, the virtualiser does not compensate rows' measured heights (see below). */
const NEVER_ADJUST = () => false;

/**
 * A virtualised list whose newest rows arrive at the bottom and are followed live (`useStickyScroll`): rows are
 * measured by their ResizeObserver only, and scroll-driven renders are never synchronous (they would block the
 * main thread while envelopes pour in). Attach `scrollRef` and `scrollProps` to the scrolling element.
 */
export function useFollowingList({
  count,
  estimateSize,
  getItemKey,
  overscan,
  edge = 'bottom',
}: {
  count: number;
  estimateSize: number;
  getItemKey: (index: number) => string | number;
  overscan: number;
  /** Where the newest rows are: the bottom (a log's tail), or the top for a list shown newest first. */
  edge?: 'bottom' | 'top';
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateSize,
    measureElement: measureFromResizeObserver,
    getItemKey,
    overscan,
    useFlushSync: false,
  });
  const totalSize = virtualizer.getTotalSize();
  const sticky = useStickyScroll(scrollRef, `${count}:${totalSize}`, edge);
  // While following, the newest rows are pinned to the bottom after each layout; compensating rows' measured
  // heights as well would only add scroll writes (each forcing a layout) for a position about to be replaced.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = sticky.following ? NEVER_ADJUST : undefined;
  return { scrollRef, virtualizer, totalSize, ...sticky };
}
