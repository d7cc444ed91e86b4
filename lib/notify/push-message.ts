import type { ProposalAction } from './action-token';
import { riskLabel } from './confirm-first';
import { argumentSummary, outcomeLine, proposalTitle, proposedCall } from './proposal-summary';
import type { ProposalEvent } from './proposal-watch';

/** What public/sw.js shows: a notification whose actions POST to their URL and whose click opens `url`. */
export interface PushMessage {
  title: string;
  body: string;
  url: string;
  /** The proposal's id: the outcome's notification replaces the pending one. */
  tag: string;
  actions?: { action: ProposalAction; title: string }[];
  action_urls?: Partial<Record<ProposalAction, string>>;
}

/** The control room's page of a proposal (relative: the service worker resolves it against its own origin). */
export function proposalPagePath(space: string, proposalId: string): string {
  return `/spaces/${encodeURIComponent(space)}#proposal=${encodeURIComponent(proposalId)}`;
}

/** Where a notification's action posts, its token as the credential. */
export function proposalActionPath(space: string, proposalId: string, action: ProposalAction, token: string): string {
  return `/api/spaces/${encodeURIComponent(space)}/proposals/${encodeURIComponent(proposalId)}/actions/${action}?t=${encodeURIComponent(token)}`;
}

const ACTION_TITLES: Record<ProposalAction, string> = { approve: 'Approve', reject: 'Reject' };

/**
 * A new proposal, for one participant: `tokens` holds a signed link per action it may take from the notification
 * (no Approve for a call that must be confirmed first, `confirm`: the notification opens the page instead).
 */
export function pendingPush(space: string, event: ProposalEvent, tokens: Partial<Record<ProposalAction, string>>, confirm: boolean): PushMessage {
  const { proposal, risk } = event;
  const offered = (['approve', 'reject'] as const).filter((action) => tokens[action] !== undefined);
  const review = confirm ? ' · open to review' : '';
  return {
    title: proposalTitle(proposal),
    body: `${space} · ${riskLabel(risk)} · ${argumentSummary(proposal.arguments)}${review}`,
    url: proposalPagePath(space, proposal.id),
    tag: proposal.id,
    ...(offered.length > 0 && {
      actions: offered.map((action) => ({ action, title: ACTION_TITLES[action] })),
      action_urls: Object.fromEntries(offered.map((action) => [action, proposalActionPath(space, proposal.id, action, tokens[action]!)])),
    }),
  };
}

/** A decided proposal: replaces its pending notification (same tag), without actions. */
export function decidedPush(space: string, event: ProposalEvent): PushMessage {
  const { proposal } = event;
  return {
    title: `${proposedCall(proposal)} ${outcomeLine(event)}`,
    body: `${space} · proposed by ${proposal.proposer}`,
    url: proposalPagePath(space, proposal.id),
    tag: proposal.id,
  };
}
