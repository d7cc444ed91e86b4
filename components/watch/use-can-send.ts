'use client';

import { useMemo } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';

/**
 * Whether my capabilities allow `kind` (with a representative `payload`): the UI mirrors the gateway's decision
 * and re-checks whenever a welcome changes my capabilities.
 */
export function useCanSend(kind: string, payload?: unknown): boolean {
  const { participant } = useSpaceSession();
  const capabilities = useSpace((s) => s.connection.capabilities);
  const key = JSON.stringify(payload ?? null);
  // `payload` is compared by value through `key`, so a fresh literal each render does not recompute.
  return useMemo(() => participant.canSend(kind, payload), [participant, capabilities, kind, key]);
}
