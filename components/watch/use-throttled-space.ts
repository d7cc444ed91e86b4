'use client';

import { useEffect, useRef, useState } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { SpaceStoreState } from '@/lib/store';

/**
 * Like `useSpace`, but re-reads the store at most once per `intervalMs` (leading and trailing): the store changes
 * on every envelope (hundreds a second), while a chart or a list only needs a few frames a second.
 * Pass a stable selector (module-level or `useCallback`); a new selector is read at once.
 */
export function useThrottledSpace<T>(selector: (state: SpaceStoreState) => T, intervalMs: number): T {
  const { store } = useSpaceSession();
  const [value, setValue] = useState<T>(() => selector(store.getState()));
  const selectorRef = useRef(selector);

  useEffect(() => {
    selectorRef.current = selector;
    setValue(() => selector(store.getState()));
  }, [selector, store]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = 0;
    const flush = () => {
      timer = undefined;
      last = Date.now();
      setValue(() => selectorRef.current(store.getState()));
    };
    const unsubscribe = store.subscribe(() => {
      if (timer === undefined) timer = setTimeout(flush, Math.max(0, last + intervalMs - Date.now()));
    });
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [store, intervalMs]);

  return value;
}
