/**
 * Test fixtures: a real gateway server on an ephemeral port and `ws` clients that queue what they receive.
 * Used by the co-located *.test.ts files; nothing in the product imports it.
 */
import { createServer } from 'node:net';
import WebSocket from 'ws';
import { createGatewayServer, type GatewayServer } from '../host/gateway-server';
import { serverFeatures, type ServerFeatureOptions } from '../host/server-features';
import { configSections } from '../host/space-feature';
import type { HistoryStore } from './history-store';
import { parseSpaceConfig } from './space-config';

export interface TestGateway extends GatewayServer {
  port: number;
  wsUrl(query?: string): string;
  httpUrl(path: string): string;
}

/**
 * Starts a gateway on 127.0.0.1:0 with inline space configs (objects in the space.yaml layout), each space hosting the
 * product's features (rules, budgets, notifications; launched processes only with `launch`).
 */
export function startTestGateway(...configs: unknown[]): Promise<TestGateway> {
  return startGatewayWith({ configs });
}

/** Like startTestGateway, with a data directory (persistence across restarts) and optionally a fixed port. */
export async function startGatewayWith(
  options: {
    configs: unknown[];
    dataDir?: string;
    port?: number;
    history?: HistoryStore;
  } & ServerFeatureOptions,
): Promise<TestGateway> {
  const features = serverFeatures(options);
  const gs = createGatewayServer({
    spaces: options.configs.map((c, i) => parseSpaceConfig(c, `test-config-${i}`, { sections: configSections(features) })),
    dataDir: options.dataDir,
    history: options.history,
    features,
    log: () => undefined,
  });
  const port = await gs.listen(options.port ?? 0, '127.0.0.1');
  return {
    ...gs,
    port,
    wsUrl: (query = '') => `ws://127.0.0.1:${port}/ws${query ? `?${query}` : ''}`,
    httpUrl: (path) => `http://127.0.0.1:${port}${path}`,
  };
}

/**
 * Gateways on one config, each on a data directory or none, for tests that restart a gateway on its data: `stop`
 * closes one, `closeAll` (after each test) whichever are still open.
 */
export function gatewaysOn(config: unknown) {
  const open = new Set<TestGateway>();
  async function start(dataDir?: string): Promise<TestGateway> {
    const gw = await startGatewayWith({ configs: [config], dataDir });
    open.add(gw);
    return gw;
  }
  async function stop(gw: TestGateway): Promise<void> {
    open.delete(gw);
    await gw.close();
  }
  async function closeAll(): Promise<void> {
    for (const gw of [...open]) await stop(gw);
  }
  return { start, stop, closeAll };
}

export type Frame = Record<string, any>;

/** A ws client that parses and queues every frame, so tests can await the next one matching a predicate. */
export class TestClient {
  readonly received: Frame[] = [];
  /** WebSocket frames that arrived; a coalesced batch (`?coalesce=`) is one frame, its items each a received `Frame`. */
  frames = 0;
  /** The items of each coalesced batch, in arrival order. */
  readonly batches: Frame[][] = [];
  /** The first `system/welcome`, once `joinAs` has awaited it. */
  welcome?: Frame;
  private waiters: { predicate: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
      ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      this.frames++;
      const text = data.toString();
      const value: Frame | unknown[] = text.startsWith('#') ? { stream: text } : JSON.parse(text);
      if (!Array.isArray(value)) return this.accept(value);
      const items = value.map((item): Frame => (typeof item === 'string' ? { stream: item } : (item as Frame)));
      this.batches.push(items);
      for (const item of items) this.accept(item);
    });
  }

  private accept(frame: Frame): void {
    this.received.push(frame);
    const i = this.waiters.findIndex((w) => w.predicate(frame));
    if (i >= 0) this.waiters.splice(i, 1)[0].resolve(frame);
  }

  /** Resolves with the first frame (already received or future) matching the predicate. */
  next(predicate: (f: Frame) => boolean = () => true, timeoutMs = 3000): Promise<Frame> {
    const seen = this.received.find(predicate);
    if (seen) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.received).slice(0, 500)}`)),
        timeoutMs,
      );
      this.waiters.push({
        predicate,
        resolve: (f) => {
          clearTimeout(timer);
          this.received.splice(this.received.indexOf(f), 1);
          resolve(f);
        },
      });
    });
  }

  kind(kind: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.kind === kind, timeoutMs);
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  close(): void {
    this.ws.close();
  }
}

/** Opens a client with the token as a bearer header (or other options) and waits for its welcome. */
export async function joinAs(gw: Pick<TestGateway, 'wsUrl'>, token: string, query = ''): Promise<TestClient> {
  const client = new TestClient(new WebSocket(gw.wsUrl(query), { headers: { Authorization: `Bearer ${token}` } }));
  await client.opened;
  client.welcome = await client.kind('system/welcome');
  return client;
}

/** A minimal space config: each participant gets token `<id>-token-0123456789`. */
export function spaceConfig(id: string, participants: Record<string, unknown[]>, extra: Record<string, unknown> = {}) {
  return {
    space: { id },
    participants: Object.fromEntries(Object.entries(participants).map(([pid, capabilities]) => [pid, { tokens: [tokenOf(pid)], capabilities }])),
    ...extra,
  };
}

export function tokenOf(participantId: string): string {
  return `${participantId}-token-0123456789`;
}

/** A TCP port free right now on 127.0.0.1 (for a gateway process a test starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
