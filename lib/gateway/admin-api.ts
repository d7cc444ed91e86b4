import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CapabilityPattern } from '../capabilities';
import { AUDIT_ACTOR_ADMIN, type Envelope } from '../protocol';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { grantCapabilities, revokeCapabilities } from './grant-handlers';
import { bearer, decodePathSegment, readJsonBody, sendJson } from './http-util';
import { requireParticipant, runtimeCapabilities } from './management';
import type { Participant } from './participant';
import type { Space } from './space';

const PARTICIPANTS_PATH = /^\/admin\/spaces\/([^/]+)\/participants$/;
const CAPABILITIES_PATH = /^\/admin\/spaces\/([^/]+)\/participants\/([^/]+)\/capabilities$/;
/** MCPx §11.3 as written: the space comes from `?space=`, or is the only one. */
const MCPX_CAPABILITIES_PATH = /^\/admin\/participants\/([^/]+)\/capabilities$/;

/**
 * The admin API of MCPx §11.3, behind the space's admin token: list participants with their effective
 * capabilities and grants; add or remove capabilities, per space or by the spec's own path (same change, the spec's
 * answer). Changes go through the same grant/revoke code as envelopes (routed as gateway `capability/grant` /
 * `capability/revoke`, audited with actor `admin`). Returns false when the path is not an admin path.
 */
export async function handleAdmin(gateway: Gateway, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const list = PARTICIPANTS_PATH.exec(url.pathname);
  const caps = CAPABILITIES_PATH.exec(url.pathname);
  const mcpx = MCPX_CAPABILITIES_PATH.exec(url.pathname);
  if (!list && !caps && !mcpx) return false;
  const space = mcpx ? spaceOfQuery(gateway, url) : spaceNamed(gateway, decodePathSegment((list ?? caps)![1]));
  const token = bearer(req);
  if (!token || !gateway.isAdmin(space, token)) throw new GatewayError('invalid_token', 'the admin API needs the space’s admin token');

  if (list) {
    if (req.method !== 'GET') throw new GatewayError('method_not_allowed', 'use GET');
    sendJson(res, 200, { space: space.id, participants: describeParticipants(space) });
    return true;
  }
  if (req.method !== 'POST') throw new GatewayError('method_not_allowed', 'use POST');
  const participant = requireParticipant(space, decodePathSegment(mcpx ? mcpx[1] : caps![2]), 'the path');
  const old = changeCapabilities(space, participant, await readJsonBody(req, space.limits.maxFrameBytes));
  if (mcpx) {
    sendJson(res, 200, {
      participantId: participant.id,
      oldCapabilities: old,
      newCapabilities: participant.capabilities,
      modifiedBy: AUDIT_ACTOR_ADMIN,
      modifiedAt: new Date().toISOString(),
    });
  } else {
    sendJson(res, 200, { participant: participant.id, old, new: participant.capabilities });
  }
  return true;
}

/** Applies an `{add?, remove?, reason?}` body to the participant; returns its capabilities from before. */
function changeCapabilities(space: Space, participant: Participant, body: unknown): CapabilityPattern[] {
  const { add: toAdd, remove: toRemove, reason: given } = (body ?? {}) as { add?: unknown; remove?: unknown; reason?: unknown };
  if (typeof body !== 'object' || body === null || (toAdd === undefined && toRemove === undefined)) {
    throw new GatewayError('invalid_envelope', 'the body needs "add" and/or "remove": arrays of capabilities');
  }
  const add = toAdd === undefined ? [] : runtimeCapabilities(toAdd, ['add']);
  const remove = toRemove === undefined ? [] : runtimeCapabilities(toRemove, ['remove']);
  const reason = typeof given === 'string' ? given : 'admin API';
  const old = participant.capabilities;
  if (remove.length > 0) {
    const envelope = space.emit('capability/revoke', { recipient: participant.id, capabilities: remove, reason }).envelope as Envelope;
    revokeCapabilities(space, AUDIT_ACTOR_ADMIN, participant, { patterns: remove }, reason, envelope);
  }
  if (add.length > 0) {
    const envelope = space.emit('capability/grant', { recipient: participant.id, capabilities: add, reason }, { broadcastTo: [participant.id] })
      .envelope as Envelope;
    grantCapabilities(space, AUDIT_ACTOR_ADMIN, participant, add, reason, envelope);
  }
  // The whole change in one record as well (the grant and revoke above have their own): durable before the answer.
  space.services.audit.recordNow({
    space: space.id,
    type: 'CAPABILITIES_CHANGED',
    actor: AUDIT_ACTOR_ADMIN,
    subject: participant.id,
    details: { before: old, after: participant.capabilities, reason },
  });
  return old;
}

function spaceNamed(gateway: Gateway, id: string): Space {
  const space = gateway.spaces.get(id);
  if (!space) throw new GatewayError('unknown_space', `no space "${id}"`);
  return space;
}

/** `?space=`, or the gateway's only space; with several and none named, which one is meant is ambiguous. */
function spaceOfQuery(gateway: Gateway, url: URL): Space {
  const id = url.searchParams.get('space');
  if (id !== null) return spaceNamed(gateway, id);
  if (gateway.spaces.size !== 1) {
    throw new GatewayError('invalid_request', `this gateway serves ${gateway.spaces.size} spaces: name one with ?space=`);
  }
  return gateway.spaces.values().next().value!;
}

function describeParticipants(space: Space) {
  const state = space.state;
  return [...space.participants.values()].map((p) => ({
    id: p.id,
    online: p.online,
    connected_at: p.connectedAt?.toISOString() ?? null,
    invited_by: p.invitedBy ?? null,
    kicked: state.kicked.includes(p.id),
    paused: p.activePause() ? { by: p.paused!.by, until: p.paused!.until ? new Date(p.paused!.until).toISOString() : null } : null,
    shutdown: p.shutdown ? { by: p.shutdown.by } : null,
    base_capabilities: p.baseCapabilities,
    capabilities: p.capabilities,
    grants: state.grants
      .filter((g) => g.recipient === p.id)
      .map((g) => ({
        id: g.id,
        capabilities: g.capabilities,
        granted_by: g.grantedBy,
        reason: g.reason ?? null,
        ts: g.ts,
        expires_at: g.expiresAt ?? null,
        revoked: g.revoked ?? null,
      })),
    revocations: state.revocations.filter((r) => r.recipient === p.id),
  }));
}
