'use client';

import { startTransition, useEffect, useState } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { SpaceStoreState } from '@/lib/store';

/**
 * Like `useSpace`, but re-reads the store at most once per `intervalMs`, and re-renders as a transition: the
 * store changes many times a second under load, while a chart or a list only needs a few frames a second, and a
 * transition's render yields to the browser every few milliseconds, so a big list redraw never holds up an
 * incoming proposal (`useSpace` readers stay synchronous). A timer catches the last change of a burst.
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
      const wait = last + intervalMs - Date.now();
      if (wait <= 0) {
        if (trailing !== undefined) clearTimeout(trailing);
        refresh();
      } else if (trailing === undefined) trailing = setTimeout(refresh, wait);
    });
    return () => {
      unsubscribe();
      if (trailing !== undefined) clearTimeout(trailing);
    };
  }, [store, selector, intervalMs]);

  // A new selector (another participant's telemetry, say) shows its own data from this render on, not after the effect.
  return read.selector === selector ? read.value : selector(store.getState());
}
