'use client';

import { useCallback, useRef, useSyncExternalStore } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { SpaceStoreState } from '@/lib/store';

/**
 * Like `useSpace`, but re-reads the store at most once per `intervalMs`: the store changes many times a second
 * under load, while a chart or a list only needs a few frames a second.
 * The read happens inside the store change that allows it, so this re-render joins the same React render (and
 * the same browser layout and paint) as every other component that change updates; a timer only catches the
 * last change of a burst. Pass a stable selector (module-level or `useCallback`); a new selector is read at once.
 */
export function useThrottledSpace<T>(selector: (state: SpaceStoreState) => T, intervalMs: number): T {
  const { store } = useSpaceSession();
  const cache = useRef<{ selector: typeof selector; value: T } | undefined>(undefined);
  if (cache.current?.selector !== selector) cache.current = { selector, value: selector(store.getState()) };

  const subscribe = useCallback(
    (notify: () => void) => {
      let last = 0;
      let trailing: ReturnType<typeof setTimeout> | undefined;
      const read = () => {
        if (trailing !== undefined) clearTimeout(trailing);
        trailing = undefined;
        last = Date.now();
        const current = cache.current!;
        current.value = current.selector(store.getState());
        notify();
      };
      const unsubscribe = store.subscribe(() => {
        const wait = last + intervalMs - Date.now();
        if (wait <= 0) read();
        else if (trailing === undefined) trailing = setTimeout(read, wait);
      });
      // A change between this render and the subscription would otherwise wait for the next one.
      const current = cache.current!;
      if (!Object.is(current.selector(store.getState()), current.value)) read();
      return () => {
        unsubscribe();
        if (trailing !== undefined) clearTimeout(trailing);
      };
    },
    [store, intervalMs],
  );
  const snapshot = useCallback(() => cache.current!.value, []);
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
