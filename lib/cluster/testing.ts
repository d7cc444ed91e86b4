/**
 * Test fixtures for cluster mode: a real `redis-server` (Debian's) on a free port in a temp dir without
 * persistence, cluster nodes in this process or as child processes that can be killed. Nothing in the product
 * imports it.
 */
import { serverFeatures } from '../host/server-features';
import { configSections } from '../host/space-feature';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSpaceConfig } from '../gateway/space-config';
import { freePort, joinAs, tokenOf, type TestClient } from '../gateway/testing';
import type { GatewayLimits } from '../gateway/gateway-options';
import { ClusterNode, type ClusterNodeOptions } from './cluster-node';
import { openRedis } from './redis-connection';

/** Joins participants (config tokens of `spaceConfig`) through any node, keeping each client in `clients` to close later. */
export function joiner(clients: TestClient[]) {
  return async (node: { wsUrl(query?: string): string }, participantId: string, query = ''): Promise<TestClient> => {
    const client = await joinAs(node, tokenOf(participantId), query);
    clients.push(client);
    return client;
  };
}

export const chat = (text: string) => ({ kind: 'chat', payload: { text } });

/** `REDIS_SERVER` overrides where the binary is. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

export interface TestRedis {
  url: string;
  /** The running redis-server (for SIGSTOP / SIGCONT). */
  process(): ChildProcess;
  /**
   * Stops the server, keeping its port: what connects now is refused. With `keepData` it saves its data first (as
   * AOF or RDB would keep it), which `restart` loads; otherwise it comes back empty.
   */
  halt(options?: { keepData?: boolean }): Promise<void>;
  /** Starts it again on the same port (stopping it first, without its data, if it runs). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A Redis client for tests, reported like the nodes' own connections. */
export function redisClient(url: string) {
  return openRedis(url, { who: 'test', impact: 'the test cannot read or write Redis' });
}

/** Starts a throwaway Redis and resolves once it accepts connections. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mew-redis-'));
  const launch = async () => {
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForOutput(child, /Ready to accept connections/, 10_000, `redis-server on port ${port}`);
    return child;
  };
  let child = await launch();
  const url = `redis://127.0.0.1:${port}`;
  let kept = false;
  return {
    url,
    process: () => child,
    halt: async ({ keepData = false } = {}) => {
      if (keepData) {
        // Started without save points: one now makes the shutdown write the RDB file the next start loads.
        const r = redisClient(url);
        await r.config('SET', 'save', '3600 1');
        r.disconnect();
      }
      await stopProcess(child);
      kept = keepData;
    },
    restart: async () => {
      await stopProcess(child);
      if (!kept) rmSync(join(dir, 'dump.rdb'), { force: true });
      kept = false;
      child = await launch();
    },
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestNode {
  node: ClusterNode;
  wsUrl(query?: string): string;
  httpUrl(path: string): string;
}

/**
 * A cluster node in this process on 127.0.0.1:0, serving inline space configs (the space.yaml layout), each owned
 * space hosting the product's features (rules, budgets, notifications), as a single-process test gateway does.
 */
export async function startNode(
  redisUrl: string,
  nodeId: string,
  configs: unknown[],
  limits?: Partial<GatewayLimits>,
  options: Pick<ClusterNodeOptions, 'redisReport' | 'startOver' | 'acceptRestore'> = {},
): Promise<TestNode> {
  const features = serverFeatures();
  const node = new ClusterNode({
    redisUrl,
    nodeId,
    limits,
    spaces: configs.map((c, i) => parseSpaceConfig(c, `test-config-${i}`, { sections: configSections(features) })),
    startOver: [],
    acceptRestore: [],
    features,
    ...options,
  });
  const port = await node.listen(0, '127.0.0.1');
  return { node, ...urls(port) };
}

export interface NodeProcess extends Omit<TestNode, 'node'> {
  id: string;
  child: ChildProcess;
  /** Its `MEW_DATA_DIR` (removed by `stop`). */
  dataDir: string;
  /** Everything it printed. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A cluster node as a child process (`npm run gateway` with MEW_REDIS_URL, or with `app` the whole app, `server.ts`
 * in production mode: it needs a `next build`), so a test can `kill -9` it.
 */
export async function startNodeProcess(redisUrl: string, nodeId: string, configs: unknown[], options: { app?: boolean } = {}): Promise<NodeProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'mew-node-'));
  const files = configs.map((config, i) => {
    const file = join(dir, `space-${i}.json`);
    writeFileSync(file, JSON.stringify(config));
    return file;
  });
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', options.app ? 'server.ts' : 'scripts/gateway.ts'], {
    env: {
      ...process.env,
      ...(options.app && { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' }),
      MEW_REDIS_URL: redisUrl,
      MEW_NODE_ID: nodeId,
      PORT: String(port),
      HOST: '127.0.0.1',
      MEW_SPACE_CONFIG: files.join(','),
      MEW_DATA_DIR: dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout!.on('data', (chunk) => (printed += chunk));
  child.stderr!.on('data', (chunk) => (printed += chunk));
  await waitForOutput(child, /cluster node/, 60_000, `cluster node ${nodeId}`);
  return {
    id: nodeId,
    child,
    dataDir: dir,
    ...urls(port),
    output: () => printed,
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Node processes started one after the other, so the first owns the spaces. */
export async function startNodeProcesses(redisUrl: string, nodeIds: string[], configs: unknown[]): Promise<NodeProcess[]> {
  const nodes: NodeProcess[] = [];
  for (const id of nodeIds) nodes.push(await startNodeProcess(redisUrl, id, configs));
  return nodes;
}

/** The name of the node that owns `space` now, as `node` sees it (`GET /cluster`). */
export async function ownerVia(node: Pick<TestNode, 'httpUrl'>, space: string): Promise<string | null> {
  const response = await fetch(node.httpUrl('/cluster'));
  return ((await response.json()) as { spaces: Record<string, string | null> }).spaces[space];
}

function urls(port: number) {
  return {
    wsUrl: (query = '') => `ws://127.0.0.1:${port}/ws${query ? `?${query}` : ''}`,
    httpUrl: (path: string) => `http://127.0.0.1:${port}${path}`,
  };
}

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${seen}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!pattern.test(seen)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${seen}`));
    });
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
