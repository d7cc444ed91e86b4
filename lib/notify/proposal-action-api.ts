import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { decodePathSegment, sendJson } from '../gateway/http-util';
import type { Space } from '../gateway/space';
import type { ActionClaims, ActionTokens, ProposalAction } from './action-token';
import { decisionEnvelope } from './proposal-decision';
import { proposedCall } from './proposal-summary';
import { allowMethods, spaceOfPath } from './route-helpers';
import type { SpaceNotifier } from './space-notifier';
import type { UsedActionTokens } from './used-action-tokens';

const ACTION_PATH = /^\/api\/spaces\/([^/]+)\/proposals\/([^/]+)\/actions\/(approve|reject)$/;
/** The query parameter carrying the token (the service worker posts the URL as the push gave it). */
export const ACTION_TOKEN_PARAM = 't';

/**
 * A notification's action: `POST /api/spaces/{space}/proposals/{id}/actions/{approve|reject}?t=TOKEN`, with no
 * bearer: the signed token is the credential. A valid, unused, unexpired token for this very proposal, action and
 * content, while the proposal is still pending, is carried out as the participant it was issued to through the
 * gateway's own submit path (capabilities, pause, rate limit and audit apply), and then cannot be used again.
 */
export function createProposalActionRoute(
  gateway: Gateway,
  tokens: ActionTokens,
  used: UsedActionTokens,
  notifierOf: (space: Space) => SpaceNotifier | undefined,
  now: () => number,
): HttpRoute {
  return async function handleAction(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = ACTION_PATH.exec(url.pathname);
    if (!match) return false;
    allowMethods(req, res, ['POST']);
    const space = spaceOfPath(gateway, match[1]);
    const proposalId = decodePathSegment(match[2]);
    const action = match[3] as ProposalAction;
    const claims = checkedClaims(tokens.verify(url.searchParams.get(ACTION_TOKEN_PARAM) ?? ''), space.id, proposalId, action, now());
    if (used.has(claims.jti)) throw new GatewayError('action_token_used', 'this action link was already used');
    const notifier = notifierOf(space);
    notifier?.sync(); // decide on everything routed so far
    const proposal = notifier?.watch.proposal(proposalId);
    if (!notifier || !proposal) throw new GatewayError('unknown_proposal', `no proposal "${proposalId}" in space "${space.id}"`);
    if (proposal.state !== 'pending') throw new GatewayError('proposal_not_pending', `the proposal is already ${proposal.state}`, { state: proposal.state });
    if (notifier.watch.contentHash(proposalId) !== claims.hash)
      throw new GatewayError('proposal_changed', 'the proposal is not the one this link was sent for');
    if (action === 'approve' && notifier.mustConfirm(proposal, notifier.watch.risk(proposal))) {
      throw new GatewayError('confirmation_required', `${proposedCall(proposal)} must be confirmed in the control room: open the proposal there`);
    }
    const participant = space.state.kicked.includes(claims.participant) ? undefined : space.participants.get(claims.participant);
    if (!participant) throw new GatewayError('invalid_action_token', `"${claims.participant}" is no longer a participant of this space`);
    const result = gateway.submit(space, participant, Buffer.from(JSON.stringify(decisionEnvelope(proposal, action))), { streamFrames: false });
    if (!result.ok) throw result.error;
    used.use(claims.jti, claims.exp, now());
    const verb = action === 'approve' ? 'Approved' : 'Rejected';
    sendJson(res, 200, { ok: true, message: `${verb} ${proposedCall(proposal)} for ${proposal.proposer}` });
    return true;
  };
}

/** The claims of a token that this server signed for this space, proposal and action, and that has not expired. */
function checkedClaims(claims: ActionClaims | undefined, space: string, proposal: string, action: ProposalAction, now: number): ActionClaims {
  if (!claims) throw new GatewayError('invalid_action_token', 'the action link is missing its token, or the token was altered');
  if (claims.space !== space || claims.proposal !== proposal || claims.action !== action) {
    throw new GatewayError('invalid_action_token', 'this action link was issued for another proposal or action');
  }
  if (claims.exp <= now) throw new GatewayError('action_token_expired', 'this action link has expired: open the proposal in the control room');
  return claims;
}
