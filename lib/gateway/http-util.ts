import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_HTTP_STATUS, type ErrorCode } from '../protocol';
import { GatewayError } from './gateway-error';

/** Reads a request body, refusing (413) as soon as it grows past the limit instead of buffering it all. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
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

/** 415 unless the request says its body is JSON (a missing Content-Type is taken as JSON). */
export function requireJsonContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type && !/^application\/(.+\+)?json\b/i.test(type)) {
    throw new GatewayError('unsupported_media_type', `Content-Type must be application/json, not ${type}`);
  }
}

/** A JSON request body: 415 for another content type, 413 over the limit, 400 when it is not JSON. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  requireJsonContentType(req);
  const body = await readBody(req, limit);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new GatewayError('invalid_json', `not JSON: ${(e as Error).message}`);
  }
}

/** The bearer token of a request, if any. */
export function bearer(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function sendError(res: ServerResponse, code: ErrorCode, message: string, details: Record<string, unknown> = {}): void {
  if (code === 'rate_limited' && typeof details.retry_after_ms === 'number') {
    res.setHeader('Retry-After', Math.ceil(details.retry_after_ms / 1000));
  }
  sendJson(res, ERROR_HTTP_STATUS[code], { error: code, message, ...details });
}

/** A percent-encoded path segment, decoded; a malformed one (`%E0%A4%A`) is the client's error, not the server's. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new GatewayError('invalid_request', `the path segment ${JSON.stringify(segment.slice(0, 100))} is not valid percent-encoding`);
  }
}

/**
 * Answers a request Node's HTTP parser refused (headers or URL too large, malformed request) with a JSON error body
 * like every other refusal, instead of Node's bare status line; a socket that is already gone is just dropped.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || error.code === 'HPE_URI_TOO_LONG';
  const code: ErrorCode = tooLarge ? 'request_too_large' : 'invalid_request';
  const body = JSON.stringify({ error: code, message: tooLarge ? 'request headers or URL too large' : 'malformed HTTP request' });
  const status = ERROR_HTTP_STATUS[code];
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
