'use client';

import { useCallback, useEffect, useState } from 'react';

/** Told within this page when a stored value changes (the `storage` event reaches other tabs only). */
const LOCAL_CHANGE = 'mew-stored-state';

/**
 * State kept in this browser's localStorage under `key` (so it outlives a reload), as JSON, and the same in every
 * component and tab that uses the key: each sees the others' changes. Unreadable or missing: `initial`.
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
    const onLocal = (event: Event) => (event as CustomEvent<string>).detail === key && setValue(read());
    window.addEventListener('storage', onStorage);
    window.addEventListener(LOCAL_CHANGE, onLocal);
    return () => {
      window.removeEventListener('storage', onStorage);
      window.removeEventListener(LOCAL_CHANGE, onLocal);
    };
  }, [key, read]);
  const update = useCallback(
    (change: (current: T) => T) => {
      const next = change(read());
      setValue(next);
      try {
        window.localStorage.setItem(key, JSON.stringify(next));
        window.dispatchEvent(new CustomEvent(LOCAL_CHANGE, { detail: key }));
      } catch {
        // Storage full or refused (private mode): the change holds for this component only.
      }
    },
    [key, read],
  );
  return [value, update];
}
