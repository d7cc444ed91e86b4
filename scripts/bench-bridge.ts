/**
 * The latency the MCP bridge adds to a `tools/call` (`npm run bench`'s last section, or run alone with
 * `node --import tsx scripts/bench-bridge.ts`). Three measurements of the same small call, sequential, after a
 * warm-up, on one gateway in this process:
 *   direct    the official MCP SDK client → the filesystem server over stdio, the request as the bridge makes it (the
 *             server's own time, stdio included);
 *   baseline  a participant → the gateway → a participant serving a trivial tool in-process → back;
 *   bridged   a participant → the gateway → the bridge → the filesystem server → back.
 * The bridge's share is the median bridged − baseline − direct.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import { filesystemServer } from '../lib/bridge/filesystem-server';
import { McpBridge } from '../lib/bridge/mcp-bridge';
import { createGatewayServer } from '../lib/host/gateway-server';
import { parseSpaceConfig } from '../lib/gateway/space-config';
import { MEWParticipant } from '../lib/sdk/mew-participant';

const WARMUP_CALLS = 200;
const READY_TIMEOUT_MS = 30_000;
const TIMED_CALLS = Number(process.env.BENCH_BRIDGE_CALLS ?? 2000);
const FILE = 'hello.txt';

export interface LatencyRow {
  name: string;
  p50: number;
  /** Undefined for the difference: tails of separate runs do not subtract. */
  p99?: number;
}

/** p50 and p99 in ms of `calls` sequential calls, after `WARMUP_CALLS` to warm up. */
export async function timed(call: () => Promise<unknown>, calls = TIMED_CALLS): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP_CALLS; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** Measures and prints; resolves with the rows (direct, baseline, bridged, added). */
export async function benchBridge(): Promise<LatencyRow[]> {
  const sandbox = mkdtempSync(join(tmpdir(), 'mew-bench-bridge-'));
  writeFileSync(join(sandbox, FILE), 'hello from the bench');
  const readFile = { name: 'read_text_file', arguments: { path: FILE } };

  const server = filesystemServer(sandbox);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: server.command, args: [...server.args], stderr: 'ignore' }));

  const tokens = { human: 'bench-human-token-0001', tool: 'bench-tool-token-00002', files: 'bench-files-token-0003' };
  const config = parseSpaceConfig({
    space: { id: 'bench-bridge' },
    limits: { rate_per_second: 1_000_000, rate_burst: 1_000_000 },
    participants: {
      human: { tokens: [tokens.human], capabilities: [{ kind: '*' }] },
      tool: { tokens: [tokens.tool], capabilities: [{ kind: 'mcp/response' }] },
      files: { tokens: [tokens.files], capabilities: [{ kind: 'mcp/response' }, { kind: 'participant/status' }] },
    },
  });
  const gateway = createGatewayServer({ spaces: [config] });
  const port = await gateway.listen(0, '127.0.0.1');
  const connection = (token: string) => ({ gateway: `ws://127.0.0.1:${port}/ws`, space: 'bench-bridge', token, autoDiscovery: false });
  const tool = new MEWParticipant(connection(tokens.tool));
  tool.tools.register({ name: 'read_text_file', execute: () => ({ content: [{ type: 'text', text: 'hello from the bench' }] }) });
  const human = new MEWParticipant(connection(tokens.human));
  const bridge = new McpBridge({ ...connection(tokens.files), server, log: () => undefined });
  try {
    await Promise.all([tool.connect(), human.connect(), bridge.connect()]);
    // A server that never gets ready must not keep the bench from ending.
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (bridge.upstream.status.state !== 'ready') {
      if (Date.now() > deadline) throw new Error(`the filesystem server was not ready within ${READY_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // The same request the bridge makes: raw, without callTool's output-schema check.
    const direct = await timed(() => client.request({ method: 'tools/call', params: readFile }, z.looseObject({})));
    const baseline = await timed(() => human.mcpRequest('tool', { method: 'tools/call', params: readFile }));
    const bridged = await timed(() => human.mcpRequest('files', { method: 'tools/call', params: readFile }));
    const rows: LatencyRow[] = [
      { name: 'direct: MCP SDK client → filesystem server (stdio)', ...direct },
      { name: 'baseline: participant → gateway → in-process tool', ...baseline },
      { name: 'bridged: participant → gateway → bridge → filesystem server', ...bridged },
      { name: 'added by the bridge (bridged − baseline − direct)', p50: bridged.p50 - baseline.p50 - direct.p50 },
    ];
    console.log(`\nMCP bridge latency per tools/call (${TIMED_CALLS} sequential calls after ${WARMUP_CALLS} to warm up)\n`);
    console.log(`${'measurement'.padEnd(64)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
    for (const row of rows) console.log(`${row.name.padEnd(64)} ${row.p50.toFixed(2).padStart(7)} ${(row.p99?.toFixed(2) ?? '–').padStart(7)}`);
    console.log('(medians subtract; tails of separate runs do not, and the bridged p99 is mostly the server’s own; target: added p50 ≤ 2 ms)');
    return rows;
  } finally {
    human.disconnect();
    tool.disconnect();
    await bridge.stop();
    await client.close();
    await gateway.close();
    rmSync(sandbox, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchBridge();
  process.exit(0);
}
