import { covers, type CapabilityPattern } from '../capabilities';
import type { Envelope } from '../protocol';
import { GatewayError } from './gateway-error';
import { requireCovered, requireParticipant, runtimeCapabilities, type ManagementHandler } from './management';
import type { Participant } from './participant';
import type { Space } from './space';

/** `capability/grant`: the grant id is the envelope id; the recipient's set changes at once and it gets a fresh welcome. */
export const handleGrant: ManagementHandler<'capability/grant'> = (space, sender, { payload }) => {
  const recipient = requireParticipant(space, payload.recipient, 'payload.recipient');
  const capabilities = runtimeCapabilities(payload.capabilities, ['payload', 'capabilities']);
  requireCovered(sender, capabilities, 'this grant');
  return (env) => grantCapabilities(space, sender.id, recipient, capabilities, payload.reason, env);
};

/**
 * `capability/revoke` by `grant_id`, or by patterns: every granted capability the patterns cover is removed,
 * and so are covered capabilities from the config (recorded as a revocation; the file is never edited).
 */
export const handleRevoke: ManagementHandler<'capability/revoke'> = (space, sender, { payload }) => {
  const recipient = requireParticipant(space, payload.recipient, 'payload.recipient');
  if (payload.grant_id !== undefined) {
    const grant = space.state.grants.find((g) => g.id === payload.grant_id && g.recipient === recipient.id && !g.revoked);
    if (!grant) throw new GatewayError('unknown_grant', `no active grant "${payload.grant_id}" of ${recipient.id}`);
  }
  const patterns = payload.capabilities ? runtimeCapabilities(payload.capabilities, ['payload', 'capabilities']) : [];
  return (env) => revokeCapabilities(space, sender.id, recipient, { grantId: payload.grant_id, patterns }, payload.reason, env);
};

/** Records a grant (persisted before the recipient hears of it), refreshes the recipient and audits it. */
export function grantCapabilities(
  space: Space,
  grantedBy: string,
  recipient: Participant,
  capabilities: CapabilityPattern[],
  reason: string | undefined,
  grant: Envelope,
): void {
  space.commit(
    (d) => {
      d.grants.push({ id: grant.id, recipient: recipient.id, capabilities, grantedBy, reason, ts: grant.ts });
    },
    () => ({ type: 'ACCESS_GRANTED', actor: grantedBy, subject: recipient.id, envelope_id: grant.id, details: { capabilities, reason } }),
  );
  space.refreshCapabilities(recipient);
}

/** Revokes one grant and/or everything the patterns cover; returns the capabilities the recipient lost. */
export function revokeCapabilities(
  space: Space,
  revokedBy: string,
  recipient: Participant,
  what: { grantId?: string; patterns: CapabilityPattern[] },
  reason: string | undefined,
  revocation: Envelope,
): CapabilityPattern[] {
  const revoked = { by: revokedBy, ts: revocation.ts, revocationId: revocation.id };
  const isCovered = (c: CapabilityPattern) => what.patterns.some((p) => covers([p], c));
  // Compared as JSON: the state is copied on every change, so the same capability is a different object.
  const after = new Set<string>();
  const removed: CapabilityPattern[] = [];
  space.commit(
    (d) => {
      for (const grant of d.grants) {
        if (grant.recipient !== recipient.id || grant.revoked) continue;
        if (grant.id !== what.grantId) grant.capabilities = grant.capabilities.filter((c) => !isCovered(c));
        if (grant.id === what.grantId || grant.capabilities.length === 0) grant.revoked = revoked;
      }
      if (what.patterns.length > 0) {
        d.revocations.push({ id: revocation.id, recipient: recipient.id, capabilities: what.patterns, by: revokedBy, ts: revocation.ts, reason });
      }
      for (const c of space.effectiveCapabilities(recipient, d)) after.add(JSON.stringify(c));
      removed.push(...recipient.capabilities.filter((c) => !after.has(JSON.stringify(c))));
    },
    () => ({
      type: 'ACCESS_REVOKED',
      actor: revokedBy,
      subject: recipient.id,
      envelope_id: revocation.id,
      details: { grant_id: what.grantId, capabilities: what.patterns, removed, reason },
    }),
  );
  space.refreshCapabilities(recipient);
  return removed;
}
