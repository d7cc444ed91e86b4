'use client';

import { useEffect } from 'react';
import { useSpace, useSpaceSession, type SpaceSession } from '@/components/session/space-session';
import { useProposalActions, type ProposalActions } from '@/components/proposals/use-proposal-actions';
import { useToolDiscovery } from '@/components/proposals/use-tool-discovery';
import { pendingProposals, type ConnectionState, type Proposal } from '@/lib/store';

/** What the inbox knows of one signed-in space: its connection, what waits there, and how to decide it. */
export interface SpaceReport {
  session: SpaceSession;
  connection: ConnectionState;
  pending: readonly Proposal[];
  actions: ProposalActions;
}

/** Reports one space's state to the inbox whenever it changes (inside that space's session). Renders nothing. */
export function SpaceReporter({ onReport }: { onReport: (space: string, report: SpaceReport) => void }) {
  const session = useSpaceSession();
  const connection = useSpace((s) => s.connection);
  const pending = useSpace(pendingProposals);
  const actions = useProposalActions();
  useToolDiscovery(pending); // each proposal's risk, from its target's tools/list
  useEffect(() => onReport(session.space, { session, connection, pending, actions }), [onReport, session, connection, pending, actions]);
  return null;
}
