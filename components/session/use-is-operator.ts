'use client';

import { useMemo } from 'react';
import { useSpace, useSpaceSession } from './space-session';

/**
 * Whether I look like an operator of the space: my capabilities cover an unrestricted `capability/grant`, the rule
 * the server applies to the audit, rules and budget APIs. The server decides; this only hides what it would refuse.
 */
export function useIsOperator(): boolean {
  const { participant } = useSpaceSession();
  const mine = useSpace((s) => s.connection.capabilities);
  return useMemo(() => {
    void mine; // re-asked after each welcome that changes my capabilities
    return participant.canSend('capability/grant', { recipient: '*', capabilities: [{ kind: '*' }] });
  }, [participant, mine]);
}
