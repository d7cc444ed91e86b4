'use client';

import { startTransition, useEffect, useState } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { SpaceStoreState } from '@/lib/store';

/**
 * Like `useSpace`, but re-reads the store at most once per `intervalMs`, and re-renders as a transition: the
 * store changes many times a second under load, while a chart or a list only needs a few frames a second, and a
 * transition's render yields to the browser every few milliseconds, so a big list redraw never holds up an
 * incoming proposal (`useSpace` readers stay synchronous). Reads ride on the store's own changes, so every reader
 * due at a batch re-renders in one React pass, laid out and painted once with the batch; a timer catches only the
 * last change of a burst.
 * Pass a stable selector (module-level or `useCallback`); a new selector is read at once.
 */
export function useThrottledSpace<T>(selector: (state: SpaceStoreState) => T, intervalMs: number): T {
  const { store } = useSpaceSession();
  const [read, setRead] = useState(() => ({ selector, value: selector(store.getState()) }));

  useEffect(() => {
    let last = 0;
    let trailing: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      trailing = undefined;
      last = Date.now();
      const value = selector(store.getState());
      startTransition(() => setRead((prev) => (prev.selector === selector && Object.is(prev.value, value) ? prev : { selector, value })));
    };
    refresh(); // a change since the first render (or a new selector) would otherwise wait for the next one
    const unsubscribe = store.subscribe(() => {
      if (trailing !== undefined) clearTimeout(trailing);
      if (Date.now() - last >= intervalMs) return refresh();
      // Under load the next batch comes sooner than this timer (restarted by every change), and the read joins it:
      // a timer at the due time would be a render, layout and paint of its own between two batches.
      trailing = setTimeout(refresh, intervalMs);
    });
    return () => {
      unsubscribe();
      if (trailing !== undefined) clearTimeout(trailing);
    };
  }, [store, selector, intervalMs]);

  // A new selector (another participant's telemetry, say) shows its own data from this render on, not after the effect.
  return read.selector === selector ? read.value : selector(store.getState());
}
