import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../protocol';

/**
 * The bearer token of an upgrade, from (in order) the Authorization header, a `mew.bearer.<token>`
 * subprotocol, or the `token` query parameter. Undefined when none is present.
 */
export function bearerToken(req: IncomingMessage, url: URL, subprotocolPrefix: string): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.toLowerCase().startsWith('bearer ')) return auth.slice(7).trim();
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols) {
    for (const p of protocols.split(',')) {
      const trimmed = p.trim();
      if (trimmed.startsWith(subprotocolPrefix)) return trimmed.slice(subprotocolPrefix.length);
    }
  }
  return url.searchParams.get('token') ?? undefined;
}

/**
 * Browsers always send Origin; Node clients do not. A browser may connect from the page's own origin
 * (same host) or from an origin on the allow-list, which is what stops other sites from riding a user's token.
 */
export function originAllowed(req: IncomingMessage, allowedOrigins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  if (allowedOrigins.includes(origin) || allowedOrigins.includes('*')) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Refuses an upgrade with an HTTP status and a JSON body, then closes the socket. */
export function rejectUpgrade(socket: Duplex, status: number, error: ErrorCode, message: string): void {
  const body = JSON.stringify({ error, message });
  const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Bad Request';
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
