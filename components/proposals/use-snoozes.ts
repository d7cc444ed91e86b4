'use client';

import { useCallback, useEffect, useMemo, useState } from 'react';
import { useStoredState } from '@/components/session/use-stored-state';

/** How long "Not now" hides a proposal. */
export const NOT_NOW_MINUTES = 15;

type Snoozes = Record<string, number>;
const NONE: Snoozes = {};

/**
 * "Not now": proposals hidden from this browser's queue until a time, without rejecting them (the agent is not told
 * no, and every other supervisor still sees them). Kept per space in localStorage, so a reload keeps them hidden;
 * each comes back by itself when its time is up.
 */
export function useSnoozes(space: string) {
  const [snoozes, update] = useStoredState<Snoozes>(`mew.snoozed.${space}`, NONE);
  const [now, setNow] = useState(() => Date.now());
  const next = useMemo(() => Math.min(Infinity, ...Object.values(snoozes).filter((until) => until > now)), [snoozes, now]);
  useEffect(() => {
    if (next === Infinity) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.max(0, next - Date.now()));
    return () => clearTimeout(timer);
  }, [next]);

  const snoozed = useMemo(() => new Set(Object.keys(snoozes).filter((id) => snoozes[id] > now)), [snoozes, now]);
  const snooze = useCallback(
    (id: string, minutes = NOT_NOW_MINUTES) =>
      update((current) => {
        const at = Date.now();
        // Lapsed entries go when a new one comes, so the record stays as small as what is hidden.
        const kept = Object.fromEntries(Object.entries(current).filter(([, until]) => until > at));
        return { ...kept, [id]: at + minutes * 60_000 };
      }),
    [update],
  );
  const wake = useCallback(
    (ids: readonly string[]) => update((current) => Object.fromEntries(Object.entries(current).filter(([id]) => !ids.includes(id)))),
    [update],
  );
  return { snoozed, snooze, wake };
}
