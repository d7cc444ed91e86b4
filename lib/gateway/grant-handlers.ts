import { randomUUID } from 'node:crypto';
import { covers, type CapabilityPattern } from '../capabilities';
import type { Envelope } from '../protocol';
import { GatewayError } from './gateway-error';
import { GATEWAY_ID } from './gateway-options';
import { requireCovered, requireParticipant, runtimeCapabilities, type ManagementHandler } from './management';
import type { Participant } from './participant';
import type { GrantRecord, SpaceStateData } from './persistence/space-records';
import type { AuditEntry, Space } from './space';

/**
 * `capability/grant`: the grant id is the envelope id; the recipient's set changes at once and it gets a fresh
 * welcome. An `expires_at` must lie ahead: the gateway revokes the grant at that instant.
 */
export const handleGrant: ManagementHandler<'capability/grant'> = (space, sender, { payload }) => {
  const recipient = requireParticipant(space, payload.recipient, 'payload.recipient');
  const capabilities = runtimeCapabilities(payload.capabilities, ['payload', 'capabilities']);
  requireCovered(sender, capabilities, 'this grant');
  const expiresAt = payload.expires_at === undefined ? undefined : Date.parse(payload.expires_at);
  // `!(… > now)` also refuses what the pattern lets through but Date cannot read (a leap second).
  if (expiresAt !== undefined && !(expiresAt > Date.now())) {
    throw new GatewayError('invalid_envelope', `payload.expires_at ${payload.expires_at} is not a future instant`, {
      issues: [{ path: ['payload', 'expires_at'], message: 'must be a future instant' }],
    });
  }
  const expires = expiresAt === undefined ? undefined : new Date(expiresAt).toISOString();
  return (env) => grantCapabilities(space, sender.id, recipient, capabilities, payload.reason, env, expires);
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

/** Records a grant (persisted before the recipient hears of it), refreshes the recipient, audits it and arms its expiry. */
export function grantCapabilities(
  space: Space,
  grantedBy: string,
  recipient: Participant,
  capabilities: CapabilityPattern[],
  reason: string | undefined,
  grant: Envelope,
  expiresAt?: string,
): void {
  const record: GrantRecord = { id: grant.id, recipient: recipient.id, capabilities, grantedBy, reason, ts: grant.ts, ...(expiresAt && { expiresAt }) };
  space.commit(
    (d) => void d.grants.push(record),
    () => ({
      type: 'ACCESS_GRANTED',
      actor: grantedBy,
      subject: recipient.id,
      envelope_id: grant.id,
      details: { capabilities, reason, expires_at: expiresAt },
    }),
  );
  space.refreshCapabilities(recipient);
  space.grantExpiry.arm(record);
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
  commitRevocation(space, recipient.id, revocation, what.grantId ?? revocation.id, (d) => {
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
    return {
      type: 'ACCESS_REVOKED',
      actor: revokedBy,
      subject: recipient.id,
      envelope_id: revocation.id,
      details: { grant_id: what.grantId, capabilities: what.patterns, removed, reason },
    };
  });
  return removed;
}

/**
 * A grant whose `expires_at` came: revoked by the gateway (`GRANT_EXPIRED`), announced as its `capability/revoke`
 * (reason `expired`), and the recipient gets a fresh welcome. A grant revoked meanwhile is left alone.
 */
export function expireGrant(space: Space, grantId: string): void {
  const grant = space.state.grants.find((g) => g.id === grantId && !g.revoked);
  if (!grant) return;
  const revocation = { id: randomUUID(), ts: new Date().toISOString() };
  const announce = () =>
    space.emit(
      'capability/revoke',
      { recipient: grant.recipient, grant_id: grant.id, reason: 'expired' },
      { id: revocation.id, broadcastTo: [grant.recipient] },
    );
  commitRevocation(
    space,
    grant.recipient,
    revocation,
    grant.id,
    (d) => {
      d.grants.find((g) => g.id === grantId)!.revoked = { by: GATEWAY_ID, ts: revocation.ts, revocationId: revocation.id, expired: true };
      return {
        type: 'GRANT_EXPIRED',
        actor: GATEWAY_ID,
        subject: grant.recipient,
        envelope_id: revocation.id,
        details: { grant_id: grant.id, capabilities: grant.capabilities, granted_by: grant.grantedBy, expires_at: grant.expiresAt },
      };
    },
    announce,
  );
}

/**
 * Commits a revocation made by `revoke` (which returns its audit record) together with its cascade: every grant
 * whose granter no longer holds all it gave is revoked too, transitively (spec §3.6.6: nobody grants what it does
 * not hold), each as its own `ACCESS_REVOKED` with `cascade_of` naming `cascadeOf`, and announced by the gateway as
 * a `capability/revoke` correlated to the revocation. Everyone whose capabilities changed gets a fresh welcome.
 */
function commitRevocation(
  space: Space,
  recipientId: string,
  revocation: { id: string; ts: string },
  cascadeOf: string,
  revoke: (d: SpaceStateData) => AuditEntry,
  /** Routes the revocation itself, when it was not an envelope already routed. */
  announce?: () => void,
): void {
  let primary!: AuditEntry;
  let cascaded: GrantRecord[] = [];
  space.commit(
    (d) => {
      primary = revoke(d);
      cascaded = unsupportedGrants(space, d);
      for (const grant of cascaded) grant.revoked = { by: GATEWAY_ID, ts: revocation.ts, revocationId: randomUUID(), cascadeOf };
    },
    () => [
      primary,
      ...cascaded.map((g) => ({
        type: 'ACCESS_REVOKED',
        actor: GATEWAY_ID,
        subject: g.recipient,
        envelope_id: g.revoked!.revocationId,
        details: { grant_id: g.id, granted_by: g.grantedBy, removed: g.capabilities, cascade_of: cascadeOf, reason: 'cascade' },
      })),
    ],
  );
  announce?.();
  for (const g of cascaded) {
    const reason = `cascade: its granter ${g.grantedBy} lost what it gave (${cascadeOf})`;
    space.emit(
      'capability/revoke',
      { recipient: g.recipient, grant_id: g.id, reason },
      { id: g.revoked!.revocationId, broadcastTo: [g.recipient], correlationId: [revocation.id] },
    );
  }
  for (const id of new Set([recipientId, ...cascaded.map((g) => g.recipient)])) {
    const participant = space.participants.get(id);
    if (participant) space.refreshCapabilities(participant);
  }
}

/**
 * Active grants that nothing supports any more, in `d`. What each participant holds is built up from the roots —
 * its remaining base, and grants from outside the participants (the admin API) — adding a grant only once its
 * granter holds all of it, until nothing changes; so a self-grant or two grants backing each other cannot keep a
 * capability alive after its source is gone. Revocations are rare; this is never on the message path.
 */
function unsupportedGrants(space: Space, d: SpaceStateData): GrantRecord[] {
  const held = new Map<string, CapabilityPattern[]>();
  for (const p of space.participants.values()) held.set(p.id, space.remainingBase(p, d));
  let pending = d.grants.filter((g) => !g.revoked);
  for (let grew = true; grew; ) {
    grew = false;
    pending = pending.filter((g) => {
      const granter = held.get(g.grantedBy);
      if (granter && !g.capabilities.every((c) => covers(granter, c))) return true;
      held.get(g.recipient)?.push(...g.capabilities);
      grew = true;
      return false;
    });
  }
  return pending;
}
