/**
 * Test fixtures for notifications: a local HTTP server standing in for a push service or a webhook receiver, the keys
 * of a browser's push subscription, and the decryption a browser does. Used by tests and e2e; nothing in the product
 * imports it.
 */
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { PushMessage } from './push-message';

/** One request the receiver got. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TestReceiver {
  url(path: string): string;
  readonly received: ReceivedRequest[];
  /** Resolves with the first request (received or future) on `path` not taken yet. */
  next(path: string, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1:0 that records every request and answers with `statuses(path, n)` (n = that path's
 * request count, from 1), 201 by default (what push services answer).
 */
export async function startReceiver(statuses: (path: string, n: number) => number = () => 201): Promise<TestReceiver> {
  const received: ReceivedRequest[] = [];
  const taken = new Set<ReceivedRequest>();
  const waiters: { path: string; resolve: (r: ReceivedRequest) => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      res.writeHead(statuses(request.path, received.filter((r) => r.path === request.path).length)).end();
      const i = waiters.findIndex((w) => w.path === request.path);
      if (i >= 0) {
        taken.add(request);
        waiters.splice(i, 1)[0].resolve(request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    next(path, timeoutMs = 5000) {
      const seen = received.find((r) => r.path === path && !taken.has(r));
      if (seen) {
        taken.add(seen);
        return Promise.resolve(seen);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no request on ${path} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ path, resolve: (r) => (clearTimeout(timer), resolve(r)) });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's side of a push subscription: its P-256 key pair and auth secret, and the JSON it would post. */
export interface TestSubscriber {
  ecdh: ECDH;
  auth: string;
  subscription(endpoint: string): { endpoint: string; keys: { p256dh: string; auth: string } };
}

export function testSubscriber(): TestSubscriber {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  return { ecdh, auth, subscription: (endpoint) => ({ endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth } }) };
}

// http_ece is what web-push encrypts with; it decrypts too (RFC 8291, aes128gcm). It ships no types.
const ece = createRequire(import.meta.url)('http_ece') as { decrypt(body: Buffer, params: { version: string; privateKey: ECDH; authSecret: string }): Buffer };

/** Decrypts a push as the browser would, and parses the message the service worker receives. */
export function decryptPush(request: ReceivedRequest, subscriber: TestSubscriber): PushMessage {
  const plain = ece.decrypt(request.body, { version: 'aes128gcm', privateKey: subscriber.ecdh, authSecret: subscriber.auth });
  return JSON.parse(plain.toString('utf8')) as PushMessage;
}
