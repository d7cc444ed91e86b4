'use client';

import { useStoredState } from '@/components/session/use-stored-state';

/** Which end of a time-ordered list (the envelope log, the audit log) holds the newest entry. */
export type TimeOrder = 'oldest-first' | 'newest-first';

/**
 * The one ordering the envelope log and the audit log share, kept in this browser: oldest first (newest at the
 * bottom, as a log reads) until someone flips it in either view, which flips both.
 */
export function useTimeOrder(): [TimeOrder, (order: TimeOrder) => void] {
  const [order, setOrder] = useStoredState<TimeOrder>('mew.time-order', 'oldest-first');
  return [order === 'newest-first' ? 'newest-first' : 'oldest-first', (next) => setOrder(() => next)];
}

/** The toggle: says the order shown and flips it; its `aria-pressed` is "newest first". */
export function TimeOrderToggle({ className }: { className: string }) {
  const [order, setOrder] = useTimeOrder();
  const newestFirst = order === 'newest-first';
  return (
    <button
      type="button"
      aria-pressed={newestFirst}
      title={newestFirst ? 'Newest at the top; press for oldest first' : 'Newest at the bottom; press for newest first'}
      onClick={() => setOrder(newestFirst ? 'oldest-first' : 'newest-first')}
      className={className}
    >
      Newest first
    </button>
  );
}
