/**
 * Cluster lines of `npm run bench` (#16): the same chat broadcast load against one plain gateway and against 1, 2
 * and 3 cluster nodes on one Redis, the load's connections spread round-robin over the nodes by a TCP balancer in
 * this process. CPU per delivery counts every node and Redis (a cluster's cost is all of it); the added latency of
 * a cross-node delivery compares two participants on two nodes with the same two on one plain gateway, both
 * through the balancer. Numbers, not assertions. BENCH_CLUSTER=off skips it; it needs Debian's redis-server.
 * BENCH_CPU_PROF=<dir> writes each gateway's and node's V8 CPU profile there (where a node's time goes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../lib/gateway/testing';
import { redisClient, startRedis, stopProcess } from '../lib/cluster/testing';
import { buildServerIfStale, gatewayNodeFlags } from './build-server.mjs';

const root = process.cwd();
const loadDir = resolve(process.env.MEW_LOAD ? resolve(process.env.MEW_LOAD, '..') : resolve(root, '../shared/tools/mew-load'));
const scale = Number(process.env.BENCH_SCALE ?? 1);
const BROADCAST = ['--participants', '50', '--senders', '5', '--messages', String(2000 * scale)];
const PAIR = ['--participants', '2', '--senders', '1', '--rate', '200', '--messages', String(2000 * scale)];

interface LoadResult {
  lost: number;
  errors: number;
  duration_s: number;
  all_deliveries_per_s: number;
  latency_ms: { p50: number; p99: number };
}

/** utime + stime of a process, in µs (from /proc; clock ticks are 100 Hz on Linux). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A round-robin TCP balancer: each new connection goes to the next target. */
function balancer(targets: number[]): Promise<{ port: number; server: Server }> {
  let next = 0;
  const server = createServer((client) => {
    const upstream = createConnection(targets[next++ % targets.length], '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const drop = () => (client.destroy(), upstream.destroy());
    client.on('error', drop);
    upstream.on('error', drop);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({ port: (server.address() as { port: number }).port, server })));
}

/** Output kept of each gateway, for a run that lost deliveries. */
const OUTPUT_TAIL_CHARS = 4_000;

interface BenchGateway {
  child: ChildProcess;
  port: number;
  /** The newest of what it printed. */
  output(): string;
}

async function startGateway(config: string, dir: string, env: Record<string, string>): Promise<BenchGateway> {
  const port = await freePort();
  // Cluster nodes as production runs them: the compiled gateway (scripts/build-server.mjs).
  const { gateway: entry } = await buildServerIfStale();
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []), ...gatewayNodeFlags, entry],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MEW_SPACE_CONFIG: config, MEW_DATA_DIR: dir, NODE_ENV: 'production', ...env },
    },
  );
  let printed = '';
  const keep = (chunk: Buffer) => (printed = (printed + chunk.toString()).slice(-OUTPUT_TAIL_CHARS));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const gateway = { child, port, output: () => printed };
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return gateway;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('a gateway did not start');
}

/** Runs mew-load through the balancer (asynchronously: the balancer lives on this event loop); CPU is that of `pids`. */
async function load(port: number, args: string[], pids: number[]): Promise<LoadResult & { cpuPerDelivery: number; split: number[] }> {
  const before = pids.map(cpuMicros);
  const child = spawn(
    process.execPath,
    [
      join(loadDir, 'mew-load.mjs'),
      '--url',
      `ws://127.0.0.1:${port}/ws`,
      '--space',
      'bench',
      '--config',
      join(loadDir, 'configs/participants-50.json'),
      '--json',
      '--timeout',
      '120',
      ...args,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await new Promise((done) => child.once('exit', done));
  const spent = pids.map((pid, i) => cpuMicros(pid) - before[i]);
  const line = stdout.trim().split('\n').at(-1);
  if (!line) throw new Error(`mew-load printed nothing: ${stderr}`);
  const result = JSON.parse(line) as LoadResult;
  const deliveries = result.all_deliveries_per_s * result.duration_s;
  const total = spent.reduce((sum, us) => sum + us, 0);
  return { ...result, cpuPerDelivery: deliveries ? total / deliveries : NaN, split: spent.map((us) => (deliveries ? us / deliveries : NaN)) };
}

export async function benchCluster(): Promise<void> {
  if (!existsSync(process.env.REDIS_SERVER ?? '/usr/bin/redis-server')) {
    console.log('\ncluster: skipped (redis-server is not installed; apt-get install -y redis-server)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mew-bench-cluster-'));
  const space = parseYaml(readFileSync(join(loadDir, 'configs/space-bench.yaml'), 'utf8'));
  space.limits = { rate_per_second: 1_000_000, rate_burst: 1_000_000, max_buffered_bytes: 64 * 1024 * 1024 };
  const config = join(dir, 'space.json');
  writeFileSync(config, JSON.stringify(space));
  const redis = await startRedis();
  const probe = redisClient(redis.url);
  const redisPid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1] ?? 0);
  probe.disconnect();
  console.log('\nCluster (#16): 50 participants × 5 senders chat broadcast, connections round-robin over the nodes; CPU = all nodes + Redis');
  const header = `${'target'.padEnd(22)} ${'deliv/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'µs/deliv'.padStart(9)} ${'lost'.padStart(5)} ${'errors'.padStart(6)}  (µs/deliv of each node + Redis)`;
  console.log(header);
  console.log('-'.repeat(header.length));
  /** A run that lost deliveries says why, from what the gateways printed. */
  const explain = (r: LoadResult, gateways: BenchGateway[]) => {
    if (r.lost === 0 && r.errors === 0) return;
    for (const g of gateways) console.log(`--- gateway on port ${g.port} ---\n${g.output()}`);
  };
  const row = (target: string, r: Awaited<ReturnType<typeof load>>) =>
    console.log(
      `${target.padEnd(22)} ${String(Math.round(r.all_deliveries_per_s)).padStart(9)} ${String(r.latency_ms.p50).padStart(7)} ${String(r.latency_ms.p99).padStart(7)} ${r.cpuPerDelivery.toFixed(2).padStart(9)} ${String(r.lost).padStart(5)} ${String(r.errors).padStart(6)}  ${r.split.length > 1 ? `(${r.split.map((us) => us.toFixed(2)).join(' + ')})` : ''}`,
    );
  const pair: Record<string, LoadResult> = {};
  try {
    const single = await startGateway(config, join(dir, 'single'), {});
    const front = await balancer([single.port]);
    try {
      const broadcast = await load(front.port, BROADCAST, [single.child.pid!]);
      row('single gateway', broadcast);
      explain(broadcast, [single]);
      pair.single = await load(front.port, PAIR, [single.child.pid!]);
    } finally {
      front.server.close();
      await stopProcess(single.child);
    }
    for (const count of [1, 2, 3]) {
      const flush = redisClient(redis.url);
      await flush.flushall();
      flush.disconnect();
      const nodes = [];
      for (let i = 0; i < count; i++)
        nodes.push(await startGateway(config, join(dir, `n${count}-${i}`), { MEW_REDIS_URL: redis.url, MEW_NODE_ID: `bench-${count}-${i}` }));
      const cluster = await balancer(nodes.map((n) => n.port));
      try {
        const broadcast = await load(cluster.port, BROADCAST, [...nodes.map((n) => n.child.pid!), redisPid]);
        row(`cluster, ${count} node${count > 1 ? 's' : ''}`, broadcast);
        explain(broadcast, nodes);
        if (count === 2) pair.cross = await load(cluster.port, PAIR, [...nodes.map((n) => n.child.pid!), redisPid]);
      } finally {
        cluster.server.close();
        // Gone before the next size's FLUSHALL: it resets the fencing token, which a node still leaving would then match.
        await Promise.all(nodes.map((node) => stopProcess(node.child)));
      }
    }
    if (pair.single && pair.cross) {
      const added = (p: 'p50' | 'p99') => (pair.cross.latency_ms[p] - pair.single.latency_ms[p]).toFixed(2);
      console.log(
        `cross-node delivery (sender and receiver on two nodes, 200 msg/s): p50 ${pair.cross.latency_ms.p50} / p99 ${pair.cross.latency_ms.p99} ms; ` +
          `one plain gateway: p50 ${pair.single.latency_ms.p50} / p99 ${pair.single.latency_ms.p99} ms; added p50 ${added('p50')} / p99 ${added('p99')} ms`,
      );
    }
  } finally {
    await redis.stop();
  }
}
