import type { IncomingMessage, ServerResponse } from 'node:http';
import { AFTER_CURSOR_PARAM } from '../protocol';
import { handleAdmin } from './admin-api';
import type { Gateway } from './gateway';
import type { Space } from './space';
import { GatewayError } from './gateway-error';
import { parseCursor } from './history-cursor';
import { handleParticipantTokens } from './token-api';
import { bearer, decodePathSegment, readBody, requireJsonContentType, sendError, sendJson } from './http-util';

const MESSAGES_PATH = /^\/participants\/([^/]+)\/messages$/;

/**
 * The gateway's HTTP endpoints: `GET /healthz` (and `/health`), `GET|POST /participants/{id}/messages` (spec §5.3) and
 * the admin API, issuing participant tokens (`POST /api/spaces/{space}/participants/{id}/tokens`), then `extraRoutes` (the audit log, the space hosts' routes). Returns false for any other path so the caller can hand the request to Next.
 * Every error is a JSON body with the status of its code.
 */
export function createHttpApi(gateway: Gateway, extraRoutes: HttpRoute[] = []) {
  const startedAt = Date.now();
  const routes: HttpRoute[] = [
    health,
    messages,
    (req, res, url) => handleAdmin(gateway, req, res, url),
    (req, res, url) => handleParticipantTokens(gateway, req, res, url),
    ...extraRoutes,
  ];

  async function health(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    // `/health` as well: the reference implementation's path, which its scripts poll.
    if (url.pathname !== '/healthz' && url.pathname !== '/health') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new GatewayError('method_not_allowed', 'use GET');
    sendJson(res, 200, healthReport(startedAt, gateway.spaces.values()));
    return true;
  }

  async function messages(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = MESSAGES_PATH.exec(url.pathname);
    if (!match) return false;
    const pathId = decodePathSegment(match[1]);
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, POST');
      throw new GatewayError('method_not_allowed', 'use GET or POST');
    }
    const space = gateway.resolveSpace(url.searchParams.get('space'));
    if (!space) throw new GatewayError('unknown_space', `no space "${url.searchParams.get('space')}"`);
    const token = bearer(req);
    const participant = token ? gateway.authenticate(space, token, { via: 'http', address: req.socket.remoteAddress }) : undefined;
    if (!participant) throw new GatewayError('invalid_token', token ? 'unknown or revoked token' : 'missing Authorization: Bearer token');
    if (participant.id !== pathId) {
      throw new GatewayError('identity_mismatch', `this token authenticates "${participant.id}", not "${pathId}"`);
    }
    if (req.method === 'GET') {
      const since = url.searchParams.get('since');
      const after = url.searchParams.get(AFTER_CURSOR_PARAM);
      const sinceMs = since ? Date.parse(since) : 0;
      if (Number.isNaN(sinceMs)) throw new GatewayError('invalid_envelope', `"since" is not an ISO timestamp: ${since}`);
      const page = space.historyFor(participant.id, { sinceMs, after: after === null ? undefined : parseCursor(after) });
      await space.durable(); // the page may hold envelopes of this very turn: none is shown before it is written
      sendJson(res, 200, page);
      return true;
    }
    requireJsonContentType(req);
    const body = await readBody(req, space.limits.maxFrameBytes);
    // The same path as a socket frame, refusal audit included; the caller hears of a refusal in the response only.
    const result = gateway.submit(space, participant, body, { streamFrames: false });
    if (!result.ok) throw result.error;
    const envelope = result.envelope!;
    await space.durable(); // "accepted" means it survives a crash from now on
    // A resend of an id already accepted is answered as the first send was (idempotent by envelope id).
    sendJson(res, 202, { id: envelope.id, status: 'accepted', timestamp: envelope.ts, ...(result.duplicate && { duplicate: true }) });
    return true;
  }

  return async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      for (const route of routes) if (await route(req, res, url)) return true;
      return false;
    } catch (e) {
      if (e instanceof GatewayError) sendError(res, e.code, e.message, e.details);
      else {
        console.error('[gateway] HTTP handler failed:', e);
        sendError(res, 'internal_error', 'the gateway failed to process this request');
      }
      return true;
    }
  };
}

/** One HTTP endpoint: handles the request and returns true, or returns false when the path is not its own. */
/** `GET /healthz` of any gateway process: up since when, and the spaces it serves here (a cluster node adds its id). */
export function healthReport(startedAt: number, spaces: Iterable<Space>, node?: string) {
  return {
    status: 'ok' as const,
    uptime_s: Math.round((Date.now() - startedAt) / 1000),
    ...(node !== undefined && { node }),
    spaces: [...spaces].map((s) => ({ id: s.id, participants: s.participants.size, connected: s.connectedCount })),
  };
}

export type HttpRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;
