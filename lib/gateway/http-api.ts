import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_HTTP_STATUS, type ErrorCode } from '../protocol';
import { decodeFrame, type Gateway } from './gateway';
import { GatewayError } from './gateway-error';

const MESSAGES_PATH = /^\/participants\/([^/]+)\/messages$/;

/**
 * The gateway's HTTP endpoints: `GET /healthz`, and `GET|POST /participants/{id}/messages` (spec §5.3).
 * Returns false for any other path so the caller can hand the request to Next. Every error is a JSON body.
 */
export function createHttpApi(gateway: Gateway) {
  const startedAt = Date.now();

  return async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 'method_not_allowed', 'use GET'), true;
      sendJson(res, 200, {
        status: 'ok',
        uptime_s: Math.round((Date.now() - startedAt) / 1000),
        spaces: [...gateway.spaces.values()].map((s) => ({
          id: s.id,
          participants: s.participants.size,
          connected: s.connectedCount,
        })),
      });
      return true;
    }
    const match = MESSAGES_PATH.exec(url.pathname);
    if (!match) return false;
    try {
      await handleMessages(req, res, url, decodeURIComponent(match[1]));
    } catch (e) {
      if (e instanceof GatewayError) sendError(res, e.code, e.message, e.details);
      else {
        console.error('[gateway] HTTP handler failed:', e);
        sendError(res, 'internal_error', 'the gateway failed to process this request');
      }
    }
    return true;
  };

  async function handleMessages(req: IncomingMessage, res: ServerResponse, url: URL, pathId: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, POST');
      throw new GatewayError('method_not_allowed', 'use GET or POST');
    }
    const space = gateway.resolveSpace(url.searchParams.get('space'));
    if (!space) throw new GatewayError('unknown_space', `no space "${url.searchParams.get('space')}"`);
    const auth = req.headers.authorization;
    const token = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
    const participant = token ? gateway.authenticate(space, token) : undefined;
    if (!participant) throw new GatewayError('invalid_token', token ? 'unknown or revoked token' : 'missing Authorization: Bearer token');
    if (participant.id !== pathId) {
      throw new GatewayError('identity_mismatch', `this token authenticates "${participant.id}", not "${pathId}"`);
    }
    if (req.method === 'GET') {
      const since = url.searchParams.get('since');
      const sinceMs = since ? Date.parse(since) : 0;
      if (Number.isNaN(sinceMs)) throw new GatewayError('invalid_envelope', `"since" is not an ISO timestamp: ${since}`);
      sendJson(res, 200, { messages: space.historyFor(participant.id, sinceMs) });
      return;
    }
    const type = req.headers['content-type'];
    if (type && !/^application\/(.+\+)?json\b/i.test(type)) {
      throw new GatewayError('unsupported_media_type', `Content-Type must be application/json, not ${type}`);
    }
    const body = await readBody(req, space.limits.maxFrameBytes);
    const envelope = gateway.accept(space, participant, decodeFrame(body, space.limits));
    sendJson(res, 202, { id: envelope.id, status: 'accepted', timestamp: envelope.ts });
  }
}

/** Reads a request body, refusing (413) as soon as it grows past the limit instead of buffering it all. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new GatewayError('message_too_large', `body exceeds the limit of ${limit} bytes`, { limit_bytes: limit }));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

export function sendError(res: ServerResponse, code: ErrorCode, message: string, details: Record<string, unknown> = {}): void {
  if (code === 'rate_limited' && typeof details.retry_after_ms === 'number') {
    res.setHeader('Retry-After', Math.ceil(details.retry_after_ms / 1000));
  }
  sendJson(res, ERROR_HTTP_STATUS[code], { error: code, message, ...details });
}
