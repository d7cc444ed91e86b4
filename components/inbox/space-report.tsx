'use client';

import { useEffect } from 'react';
import { useSpace, useSpaceSession, type SpaceSession } from '@/components/session/space-session';
import { useProposalActions, type ProposalActions } from '@/components/proposals/use-proposal-actions';
import { useToolDiscovery } from '@/components/proposals/use-tool-discovery';
import { openQuestionsForMe, pendingProposals, type ChatQuestion, type ConnectionState, type Proposal } from '@/lib/store';

/** What the inbox knows of one signed-in space: its connection, what waits there (proposals, questions), and how to decide it. */
export interface SpaceReport {
  session: SpaceSession;
  connection: ConnectionState;
  pending: readonly Proposal[];
  /** Questions waiting for my answer (an MCP client's `space__ask_human`, any participant's question). */
  questions: readonly ChatQuestion[];
  actions: ProposalActions;
}

/** Reports one space's state to the inbox whenever it changes (inside that space's session). Renders nothing. */
export function SpaceReporter({ onReport }: { onReport: (space: string, report: SpaceReport) => void }) {
  const session = useSpaceSession();
  const connection = useSpace((s) => s.connection);
  const pending = useSpace(pendingProposals);
  const questions = useSpace(openQuestionsForMe);
  const actions = useProposalActions();
  useToolDiscovery(pending); // each proposal's risk, from its target's tools/list
  useEffect(() => onReport(session.space, { session, connection, pending, questions, actions }), [onReport, session, connection, pending, questions, actions]);
  return null;
}
