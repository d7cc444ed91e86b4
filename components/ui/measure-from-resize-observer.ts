import type { Virtualizer } from '@tanstack/react-virtual';

/**
 * A `measureElement` for @tanstack/react-virtual that takes row heights only from its ResizeObserver. The default
 * also calls `getBoundingClientRect` when a row mounts, which forces a synchronous layout of the whole page for
 * every new row; in a list that gains rows many times a second that was the control room's largest main-thread
 * cost. The observer reports each new row's real height right after the browser's own layout, so until then the
 * row keeps its cached height or the estimate.
 */
export function measureFromResizeObserver<S extends Element, E extends Element>(
  element: E,
  entry: ResizeObserverEntry | undefined,
  instance: Virtualizer<S, E>,
): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return Math.round(box.blockSize);
  const index = instance.indexFromElement(element);
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index);
}
