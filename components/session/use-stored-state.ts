'use client';

import { useCallback, useEffect, useState } from 'react';

/**
 * State kept in this browser's localStorage under `key` (so it outlives a reload and is shared by the tabs of
 * this browser, which see each other's changes), as JSON. Unreadable or missing: `initial`.
 */
export function useStoredState<T>(key: string, initial: T): [T, (update: (current: T) => T) => void] {
  const read = useCallback((): T => {
    try {
      const stored = window.localStorage.getItem(key);
      return stored === null ? initial : (JSON.parse(stored) as T);
    } catch {
      return initial;
    }
    // `initial` is only a default: a new one (an inline literal each render) must not re-read the storage.
  }, [key]);
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    setValue(read());
    const onStorage = (event: StorageEvent) => event.key === key && setValue(read());
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [key, read]);
  const update = useCallback(
    (change: (current: T) => T) =>
      setValue((current) => {
        const next = change(current);
        try {
          window.localStorage.setItem(key, JSON.stringify(next));
        } catch {
          // Storage full or refused (private mode): the change holds for this page only.
        }
        return next;
      }),
    [key],
  );
  return [value, update];
}
