import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope } from '../protocol';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { grantCapabilities, revokeCapabilities } from './grant-handlers';
import { bearer, decodePathSegment, readJsonBody, sendJson } from './http-util';
import { requireParticipant, runtimeCapabilities } from './management';
import type { Space } from './space';

const PARTICIPANTS_PATH = /^\/admin\/spaces\/([^/]+)\/participants$/;
const CAPABILITIES_PATH = /^\/admin\/spaces\/([^/]+)\/participants\/([^/]+)\/capabilities$/;

/**
 * The admin API of MCPx §11.3, behind the space's admin token: list participants with their effective
 * capabilities and grants; add or remove capabilities. Changes go through the same grant/revoke code as
 * envelopes (routed as gateway `capability/grant` / `capability/revoke`, audited with actor `admin`).
 * Returns false when the path is not an admin path.
 */
export async function handleAdmin(gateway: Gateway, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const list = PARTICIPANTS_PATH.exec(url.pathname);
  const caps = CAPABILITIES_PATH.exec(url.pathname);
  if (!list && !caps) return false;
  const space = gateway.spaces.get(decodePathSegment((list ?? caps)![1]));
  if (!space) throw new GatewayError('unknown_space', `no space "${(list ?? caps)![1]}"`);
  const token = bearer(req);
  if (!token || !gateway.isAdmin(space, token)) throw new GatewayError('invalid_token', 'the admin API needs the space’s admin token');

  if (list) {
    if (req.method !== 'GET') throw new GatewayError('method_not_allowed', 'use GET');
    sendJson(res, 200, { space: space.id, participants: describeParticipants(space) });
    return true;
  }
  if (req.method !== 'POST') throw new GatewayError('method_not_allowed', 'use POST');
  const participant = requireParticipant(space, decodePathSegment(caps![2]), 'the path');
  const body = (await readJsonBody(req, space.limits.maxFrameBytes)) as { add?: unknown; remove?: unknown; reason?: unknown };
  if (!body || typeof body !== 'object' || (body.add === undefined && body.remove === undefined)) {
    throw new GatewayError('invalid_envelope', 'the body needs "add" and/or "remove": arrays of capabilities');
  }
  const add = body.add === undefined ? [] : runtimeCapabilities(body.add, ['add']);
  const remove = body.remove === undefined ? [] : runtimeCapabilities(body.remove, ['remove']);
  const reason = typeof body.reason === 'string' ? body.reason : 'admin API';
  const old = participant.capabilities;
  if (remove.length > 0) {
    const envelope = space.emit('capability/revoke', { recipient: participant.id, capabilities: remove, reason }).envelope as Envelope;
    revokeCapabilities(space, 'admin', participant, { patterns: remove }, reason, envelope);
  }
  if (add.length > 0) {
    const envelope = space.emit('capability/grant', { recipient: participant.id, capabilities: add, reason }, { broadcastTo: [participant.id] }).envelope as Envelope;
    grantCapabilities(space, 'admin', participant, add, reason, envelope);
  }
  // The whole change in one record as well (the grant and revoke above have their own): durable before the answer.
  space.services.audit.recordNow({
    space: space.id,
    type: 'CAPABILITIES_CHANGED',
    actor: 'admin',
    subject: participant.id,
    details: { before: old, after: participant.capabilities, reason },
  });
  sendJson(res, 200, { participant: participant.id, old, new: participant.capabilities });
  return true;
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
      .map((g) => ({ id: g.id, capabilities: g.capabilities, granted_by: g.grantedBy, reason: g.reason ?? null, ts: g.ts, revoked: g.revoked ?? null })),
    revocations: state.revocations.filter((r) => r.recipient === p.id),
  }));
}
