'use client';

import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import { participantById } from '@/lib/store';
import type { WireCapability } from '@/lib/protocol';

/** A `capability/revoke` by pattern seen live, tied to the capability snapshot it applies to. */
export interface PatternRevocation {
  id: string;
  recipient: string;
  patterns: readonly WireCapability[];
  by: string;
  at: number;
  /** The recipient's reported capabilities when it arrived: a later welcome or join already reflects it. */
  snapshot: readonly WireCapability[] | undefined;
}

/** Kept per space; revocations are rare, and a fresh snapshot makes old ones moot anyway. */
const CAP = 100;
const RevocationsContext = createContext<readonly PatternRevocation[]>([]);

/**
 * The gateway applies a revoke-by-pattern to base (config) capabilities too, but only the recipient gets a
 * fresh welcome, and the store records revocations only against grants. So the rail listens for revokes itself
 * (the SDK's per-kind event: no per-envelope cost) and marks covered base capabilities until a newer snapshot.
 */
export function PatternRevocationsProvider({ children }: { children: ReactNode }) {
  const { participant, store } = useSpaceSession();
  const [revocations, setRevocations] = useState<readonly PatternRevocation[]>([]);
  useEffect(
    () =>
      participant.client.on('capability/revoke', (envelope) => {
        const { recipient, capabilities } = envelope.payload;
        if (!capabilities?.length) return;
        const revocation: PatternRevocation = {
          id: envelope.id,
          recipient,
          patterns: capabilities,
          by: envelope.from,
          at: Date.parse(envelope.ts ?? '') || Date.now(),
          snapshot: participantById(store.getState(), recipient)?.capabilities,
        };
        setRevocations((list) => [...list.slice(-(CAP - 1)), revocation]);
      }),
    [participant, store],
  );
  return <RevocationsContext.Provider value={revocations}>{children}</RevocationsContext.Provider>;
}

/** Pattern revocations of `recipient` that still apply to `snapshot` (its reported capabilities). */
export function usePatternRevocations(recipient: string, snapshot: readonly WireCapability[]): readonly PatternRevocation[] {
  const all = useContext(RevocationsContext);
  return useMemo(() => all.filter((r) => r.recipient === recipient && r.snapshot === snapshot), [all, recipient, snapshot]);
}
