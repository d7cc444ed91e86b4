import { randomUUID } from 'node:crypto';
import type { CompiledCapabilities } from '../capabilities';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { ToolSecurity } from '../sdk/model/tools-slice';
import type { ProposalAction } from './action-token';

/** The reject reason of a notification's Reject (spec §3.3.3). */
export const NOTIFICATION_REJECT_REASON = 'disagree';

/**
 * The envelope that carries out a decision, as any participant would send it: approve = the `mcp/request` that
 * fulfils the proposal (its method and params, to its targets, correlated to it); reject = `mcp/reject` to the proposer.
 */
export function decisionEnvelope(proposal: Proposal, action: ProposalAction) {
  if (action === 'reject') {
    return { kind: 'mcp/reject', to: [proposal.proposer], correlation_id: [proposal.id], payload: { reason: NOTIFICATION_REJECT_REASON } };
  }
  const id = randomUUID();
  return {
    id,
    kind: 'mcp/request',
    to: [...proposal.targets],
    correlation_id: [proposal.id],
    payload: { jsonrpc: '2.0', id, method: proposal.method, ...(proposal.params !== undefined && { params: proposal.params }) },
  };
}

/**
 * The actions a participant may take on a proposal from a notification: those its capabilities allow, minus
 * Approve for a call that must be confirmed on the page (`confirm`). Its own proposals are not its to decide.
 */
export function notificationActions(participant: { id: string; compiled: CompiledCapabilities }, proposal: Proposal, confirm: boolean): ProposalAction[] {
  if (participant.id === proposal.proposer) return [];
  return (['approve', 'reject'] as const).filter(
    (action) => participant.compiled.matches(decisionEnvelope(proposal, action)) && (action === 'reject' || !confirm),
  );
}

/** Whether the participant could decide the proposal at all (on the page, if not from a notification): it may fulfil it. */
export function mayDecide(participant: { id: string; compiled: CompiledCapabilities }, proposal: Proposal): boolean {
  return participant.id !== proposal.proposer && participant.compiled.matches(decisionEnvelope(proposal, 'approve'));
}
