/**
 * `npm run bench`: drives the gateway alone (scripts/gateway.ts, compiled to dist/gateway.mjs as production runs
 * it) with ../shared/tools/mew-load, and the same loads against two bare relays (scripts/bare-relay.ts: naive, and
 * batched = the gateway's write path without any parsing or checks) in the same run, then prints deliveries/s,
 * latency percentiles, server CPU µs per delivery and peak RSS. gateway ÷ batched relay is what enforcement costs.
 * Then the MCP bridge's added latency per tools/call (scripts/bench-bridge.ts), and cluster mode on Redis with 1, 2
 * and 3 nodes (scripts/bench-cluster.ts). Numbers, not assertions: tests never time anything.
 * Then the space's MCP endpoint (scripts/bench-mcp.ts). Options: MEW_LOAD (path to mew-load.mjs), BENCH_SCALE
 * (message-count multiplier, default 1), BENCH_CONFIGS (the gateway configs to run by letter, e.g. `ce`; default all),
 * BENCH_BRIDGE=off, BENCH_MCP=off, BENCH_CLUSTER=off.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { benchBridge } from './bench-bridge';
import { benchCluster } from './bench-cluster';
import { benchMcp } from './bench-mcp';
import { benchRules } from './bench-rules';
import { benchSupervisor } from './bench-supervisor';
import { buildServerIfStale, gatewayNodeFlags } from './build-server.mjs';

const root = process.cwd();
const loadDir = resolve(process.env.MEW_LOAD ? resolve(process.env.MEW_LOAD, '..') : resolve(root, '../shared/tools/mew-load'));
const mewLoad = join(loadDir, 'mew-load.mjs');
const scale = Number(process.env.BENCH_SCALE ?? 1);

interface LoadConfig {
  name: string;
  args: string[];
}

const ALL_CONFIGS: LoadConfig[] = [
  { name: '(b) 10 participants × 10 senders, chat', args: ['--participants', '10', '--senders', '10', '--messages', String(3000 * scale)] },
  { name: '(c) 50 participants × 5 senders, chat broadcast', args: ['--participants', '50', '--senders', '5', '--messages', String(3000 * scale)] },
  {
    name: '(d) 20 participants × 10 senders, payload-pattern mcp/request',
    args: ['--participants', '20', '--senders', '10', '--kind', 'mcp-request', '--messages', String(3000 * scale)],
  },
  { name: '(e) 10 participants, 2 senders × 200 msg/s', args: ['--participants', '10', '--senders', '2', '--rate', '200', '--messages', String(2000 * scale)] },
];

/** `BENCH_CONFIGS=ce` runs (c) and (e) only: for A/B runs of one config. */
const CONFIGS = ALL_CONFIGS.filter((config) => !process.env.BENCH_CONFIGS || process.env.BENCH_CONFIGS.includes(config.name[1]));

interface LoadResult {
  ok: boolean;
  lost: number;
  errors: number;
  all_deliveries_per_s: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  gateway: { cpu_us_per_delivery: number; rss_peak_mb: number } | null;
  first_error?: unknown;
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start`);
}

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
}

function runLoad(url: string, pid: number, config: LoadConfig, label: string): LoadResult {
  const out = spawnSync(
    process.execPath,
    [
      mewLoad,
      '--url',
      url,
      '--space',
      'bench',
      '--config',
      join(loadDir, 'configs/participants-50.json'),
      '--gateway-pid',
      String(pid),
      '--json',
      '--timeout',
      '120',
      '--label',
      label,
      ...config.args,
    ],
    { encoding: 'utf8', cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  const line = out.stdout.trim().split('\n').at(-1);
  if (!line) throw new Error(`mew-load printed nothing: ${out.stderr}`);
  return JSON.parse(line) as LoadResult;
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mew-bench-'));
  // The bench space of mew-load, with rate limits lifted: the bench measures throughput, not the limiter.
  const space = parseYaml(readFileSync(join(loadDir, 'configs/space-bench.yaml'), 'utf8'));
  space.limits = { rate_per_second: 1_000_000, rate_burst: 1_000_000, max_buffered_bytes: 64 * 1024 * 1024 };
  writeFileSync(join(dir, 'space.json'), JSON.stringify(space));

  const gatewayPort = await freePort();
  const naivePort = await freePort();
  const batchedPort = await freePort();
  // The gateway as production runs it, and the relays alike: compiled (scripts/build-server.mjs), not through tsx.
  const compiled = await buildServerIfStale();
  const gateway = start([...gatewayNodeFlags, compiled.gateway], {
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
    MEW_SPACE_CONFIG: join(dir, 'space.json'),
    MEW_DATA_DIR: dir,
    NODE_ENV: 'production',
  });
  const naive = start([compiled['bare-relay'], String(naivePort), 'naive']);
  const batched = start([compiled['bare-relay'], String(batchedPort), 'batched']);
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).ok, 'gateway');
    for (const port of [naivePort, batchedPort]) {
      await waitFor(
        () =>
          new Promise((done) => {
            const s = createServer();
            s.once('error', () => done(true));
            s.listen(port, '127.0.0.1', () => s.close(() => done(false)));
          }),
        'bare relay',
      );
    }
    console.log(`MEW gateway benchmark (mew-load, ${CONFIGS.length} configs, 2 runs per target, best of 2 by CPU/delivery)\n`);
    const header = `${'config'.padEnd(64)} ${'target'.padEnd(8)} ${pad('deliv/s', 9)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('µs/deliv', 9)} ${pad('RSS MB', 7)} ${pad('lost', 5)} ${pad('errors', 6)}`;
    console.log(header);
    console.log('-'.repeat(header.length));
    const rows: string[] = [];
    for (const config of CONFIGS) {
      const best: Record<string, LoadResult> = {};
      for (const [target, url, pid] of [
        ['gateway', `ws://127.0.0.1:${gatewayPort}/ws`, gateway.pid!],
        ['batched', `ws://127.0.0.1:${batchedPort}/`, batched.pid!],
        ['naive', `ws://127.0.0.1:${naivePort}/`, naive.pid!],
      ] as const) {
        for (let run = 0; run < 2; run++) {
          const r = runLoad(url, pid, config, target);
          if (!best[target] || (r.gateway?.cpu_us_per_delivery ?? Infinity) < (best[target].gateway?.cpu_us_per_delivery ?? Infinity)) best[target] = r;
        }
        const r = best[target];
        const line = `${config.name.padEnd(64)} ${target.padEnd(8)} ${pad(Math.round(r.all_deliveries_per_s), 9)} ${pad(r.latency_ms.p50, 7)} ${pad(r.latency_ms.p99, 7)} ${pad(r.gateway?.cpu_us_per_delivery ?? '-', 9)} ${pad(r.gateway?.rss_peak_mb ?? '-', 7)} ${pad(r.lost, 5)} ${pad(r.errors, 6)}`;
        console.log(line);
        rows.push(line);
        if (r.first_error) console.log(`  first error: ${JSON.stringify(r.first_error).slice(0, 200)}`);
      }
      const cpu = (t: string) => best[t].gateway?.cpu_us_per_delivery;
      const g = cpu('gateway');
      const b = cpu('batched');
      const n = cpu('naive');
      if (g && b && n) {
        console.log(`${''.padEnd(64)} CPU/delivery: gateway ÷ batched relay ${(g / b).toFixed(2)}×, gateway ÷ naive relay ${(g / n).toFixed(2)}×`);
      }
    }
  } finally {
    for (const child of [gateway, naive, batched]) child.kill('SIGTERM');
  }
}

await main();
// The MCP bridge's added latency per tools/call (BENCH_BRIDGE=off skips it), the approval rules' decision time, and
// the rule supervisor's, end to end.
if (process.env.BENCH_BRIDGE !== 'off') await benchBridge();
benchRules();
await benchSupervisor();
if (process.env.BENCH_MCP !== 'off') await benchMcp();
if (process.env.BENCH_CLUSTER !== 'off') await benchCluster();
process.exit(0);
