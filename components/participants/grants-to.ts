'use client';

import { useMemo } from 'react';
import { useSpace } from '@/components/session/space-session';
import type { GrantState, SpaceState } from '@/lib/store';

const NONE: readonly GrantState[] = [];

/**
 * A selector of the grants to `recipient`, oldest first, that returns the same array until one of those grants
 * changes: a grant to anyone else then re-renders no other participant's card. One per card (the shared memoised
 * selectors keep a few argument combinations, fewer than a busy rail has cards).
 */
export function grantsToSelector(recipient: string): (state: SpaceState) => readonly GrantState[] {
  let slice: SpaceState['grants'] | undefined;
  let value = NONE;
  return (state) => {
    if (state.grants === slice) return value;
    slice = state.grants;
    const next = [...state.grants.byId.values()].filter((g) => g.recipient === recipient).sort((a, b) => a.at - b.at);
    // Grant records are immutable, so the same records in the same order mean nothing changed for this recipient.
    if (next.length !== value.length || next.some((g, i) => g !== value[i])) value = next.length === 0 ? NONE : next;
    return value;
  };
}

/** The grants to `recipient`, oldest first (see `grantsToSelector`). */
export function useGrantsTo(recipient: string): readonly GrantState[] {
  return useSpace(useMemo(() => grantsToSelector(recipient), [recipient]));
}
