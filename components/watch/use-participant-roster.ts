'use client';

import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSpace } from '@/components/session/space-session';
import { participantList, type SpaceStoreState } from '@/lib/store';

/** Who is in the space and whether they are online: the only participant facts pickers and filters need. */
export interface RosterEntry {
  id: string;
  online: boolean;
}

// Encoded as strings so a shallow compare sees "nothing changed": the participants slice itself changes with
// every status report and control (hundreds a second under load), the roster almost never.
const roster = (s: SpaceStoreState) => participantList(s).map((p) => `${p.online ? '+' : '-'}${p.id}`);

/** Participants (online first, then by id), re-rendering only when someone joins, leaves or appears. */
export function useParticipantRoster(): readonly RosterEntry[] {
  const encoded = useSpace(useShallow(roster));
  return useMemo(() => encoded.map((e) => ({ id: e.slice(1), online: e[0] === '+' })), [encoded]);
}
