/**
 * What the space's MCP endpoint (`/mcp/{space}`) costs (`npm run bench`, or alone with `node --import tsx
 * scripts/bench-mcp.ts`). The server (gateway and MCP endpoint, as production runs them) is this process; the tool
 * runs in a child as a bridged server would, and the load in another child, as real clients would: a MEW
 * participant calling the tool directly, and MCP clients (the official SDK's, Streamable HTTP).
 *
 * Measured: a direct `tools/call` by an MCP client (the official SDK's, and a lean one) against the same call by the
 * MEW participant; 200 sessions (200 participants) listing and calling at an agent's pace; and the same 200 back to
 * back, which shows what the machine can serve at all (on a shared 2-core VM the clients' own CPU is part of it).
 * Targets: ≤ 1 ms added at p50; p99 ≤ 50 ms with 200 sessions. Numbers, not assertions (docs/benchmarks.md).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseSpaceConfig } from '../lib/gateway/space-config';
import { createGatewayServer } from '../lib/host/gateway-server';
import { mcpEndpointFeature } from '../lib/mcp-server/mcp-endpoint-feature';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { type LatencyRow, timed } from './bench-bridge';

const CALLS = 1000;
const SESSIONS = 200;
/** Each concurrent session lists once and calls this many times. */
const CALLS_PER_SESSION = 10;
/** An agent's pace: each session calls at most this often (200 sessions offer 400 calls/s). */
const CALL_INTERVAL_MS = 500;
const SPACE = 'bench-mcp';
const TOKENS = { tool: 'bench-mcp-tool-token-0001', agent: 'bench-mcp-agent-token-002' };
/** Each concurrent session is another participant, as 200 MCP clients would be. */
const clientToken = (i: number) => `bench-mcp-client-token-${String(i).padStart(4, '0')}`;

export async function benchMcp(): Promise<LatencyRow[]> {
  const config = parseSpaceConfig({
    space: { id: SPACE },
    limits: { rate_per_second: 1_000_000, rate_burst: 1_000_000 },
    participants: {
      tool: { tokens: [TOKENS.tool], capabilities: [{ kind: 'mcp/response' }] },
      agent: { tokens: [TOKENS.agent], capabilities: [{ kind: 'mcp/request' }] },
      ...Object.fromEntries(Array.from({ length: SESSIONS }, (_, i) => [`client-${i}`, { tokens: [clientToken(i)], capabilities: [{ kind: 'mcp/request' }] }])),
    },
  });
  const server = createGatewayServer({ spaces: [config], features: [mcpEndpointFeature()], log: () => undefined });
  const port = await server.listen(0, '127.0.0.1');
  const children: ChildProcess[] = [];
  const cpu = serverCpu();
  try {
    const child = <T>(role: string) => {
      const process = fork(fileURLToPath(import.meta.url), [role, String(port)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(process);
      return new Promise<T>((resolve, reject) => {
        process.on('message', (message) => {
          if (typeof message === 'object' && message !== null && 'phase' in message) return cpu.mark(message.phase as string);
          resolve(message as T);
        });
        process.once('exit', (code) => reject(new Error(`the ${role} process exited (${code}) before reporting`)));
      });
    };
    await child('--tool');
    const { rows, throughput } = await child<{ rows: LatencyRow[]; throughput: number }>('--load');
    console.log(`\nMCP endpoint: a tools/call through /mcp (${CALLS} sequential calls; target ≤ 1 ms added at p50, p99 ≤ 50 ms with ${SESSIONS} sessions)\n`);
    console.log(`${'measurement'.padEnd(72)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
    for (const row of rows) console.log(`${row.name.padEnd(72)} ${row.p50.toFixed(2).padStart(7)} ${(row.p99?.toFixed(2) ?? '–').padStart(7)}`);
    console.log(`${SESSIONS} sessions back to back: ${Math.round(throughput)} calls/s`);
    const perCall = (phase: string, calls: number) => (cpu.spent(phase) / calls).toFixed(0);
    console.log(
      `server CPU per call: ${perCall('direct', CALLS)} µs direct, ${perCall('mcp', CALLS)} µs through /mcp ` +
        `(${perCall('lean', CALLS)} µs from the lean client); ` +
        `${perCall('saturated', SESSIONS * (CALLS_PER_SESSION + 1))} µs per operation with ${SESSIONS} sessions back to back`,
    );
    return rows;
  } finally {
    for (const process of children) process.kill();
    await server.close();
  }
}

const connection = (port: number, token: string) => ({ gateway: `ws://127.0.0.1:${port}/ws`, space: SPACE, token, autoDiscovery: false });

/** The tool, in a child of its own (as a bridged MCP server runs): answers until the parent ends it. */
async function runTool(port: number): Promise<void> {
  const tool = new MEWParticipant(connection(port, TOKENS.tool));
  tool.tools.register({ name: 'note', inputSchema: { type: 'object' }, execute: () => 'noted' });
  await tool.connect();
}

/** The load, in the child: measures and sends the rows to the parent. */
async function runLoad(port: number): Promise<{ rows: LatencyRow[]; throughput: number }> {
  const agent = new MEWParticipant(connection(port, TOKENS.agent));
  const clients: Client[] = [];
  const mcpClient = async (token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/${SPACE}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  try {
    await agent.connect();
    const call = { method: 'tools/call', params: { name: 'note', arguments: { path: 'notes/today.md' } } };
    const direct = await phase('direct', () => timed(() => agent.mcpRequest('tool', call), CALLS));
    // The same participant then calls through /mcp instead, alone as it was: its WebSocket would otherwise receive
    // each call and answer as one more connection of the participant (an extra delivery the direct call did not pay).
    agent.disconnect();
    const first = await mcpClient(TOKENS.agent);
    await first.listTools();
    const viaMcp = await phase('mcp', () => timed(() => first.callTool({ name: 'tool__note', arguments: { path: 'notes/today.md' } }), CALLS));
    const lean = leanCaller(port, TOKENS.agent, first.transport as StreamableHTTPClientTransport);
    const viaLean = await phase('lean', () => timed(() => lean({ name: 'tool__note', arguments: { path: 'notes/today.md' } }), CALLS));
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => mcpClient(clientToken(i))));
    const each = (intervalMs: number) =>
      percentiles(sessions, async (session, time) => {
        if (intervalMs > 0) await sleep(Math.random() * intervalMs); // sessions start spread, as agents do
        await time(() => session.listTools());
        for (let i = 0; i < CALLS_PER_SESSION; i++) {
          const started = performance.now();
          await time(() => session.callTool({ name: 'tool__note', arguments: { path: `notes/${i}.md` } }));
          await sleep(intervalMs - (performance.now() - started));
        }
      });
    // Each session's first listing and call (cold: the client caches the listing, the session learns its tools), as
    // the sequential measurements warm up; reported on their own row.
    const cold = await percentiles(sessions, async (session, time) => {
      await time(async () => {
        await session.listTools();
        await session.callTool({ name: 'tool__note', arguments: { path: 'notes/first.md' } });
      });
    });
    const paced = await each(CALL_INTERVAL_MS);
    const saturated = await phase('saturated', () => each(0));
    return {
      rows: [
        { name: 'direct tools/call by a MEW participant', ...direct },
        { name: 'the same call by an MCP client through /mcp', ...viaMcp },
        { name: 'added, with the official SDK client', p50: viaMcp.p50 - direct.p50 },
        { name: 'the same call as a lean client posts it (JSON-RPC, kept-alive HTTP)', ...viaLean },
        { name: 'added by the MCP endpoint (lean client)', p50: viaLean.p50 - direct.p50 },
        { name: `${SESSIONS} new sessions at once: each one's first list + call`, ...cold },
        { name: `${SESSIONS} sessions, one call each per ${CALL_INTERVAL_MS} ms: list + ${CALLS_PER_SESSION} calls`, ...paced },
        { name: `${SESSIONS} sessions back to back: list + ${CALLS_PER_SESSION} calls`, ...saturated },
      ],
      throughput: (SESSIONS * (CALLS_PER_SESSION + 1)) / (saturated.seconds || 1),
    };
  } finally {
    await Promise.all(clients.map((c) => (c.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined)));
    await Promise.all(clients.map((c) => c.close()));
    agent.disconnect();
  }
}

/**
 * `tools/call` on an open session as a lean client sends it: one JSON-RPC POST on a kept-alive connection, the JSON
 * answer parsed. What the endpoint adds, without the official client's own cost per call (its `fetch`, streams and
 * validation: about 1 ms of CPU per call on Node 20, spent in the client's process).
 */
function leanCaller(port: number, token: string, session: StreamableHTTPClientTransport) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = {
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Session-Id': session.sessionId!,
    'Mcp-Protocol-Version': session.protocolVersion!,
  };
  let id = 0;
  return (params: { name: string; arguments: Record<string, unknown> }) =>
    new Promise<unknown>((resolve, reject) => {
      const post = request({ host: '127.0.0.1', port, path: `/mcp/${SPACE}`, method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (answer.error) reject(new Error(answer.error.message));
          else resolve(answer.result);
        });
      });
      post.on('error', reject);
      post.end(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params }));
    });
}

/** Runs `work` for every session at once; p50 and p99 of the operations it timed, and how long it all took. */
async function percentiles<T>(
  sessions: readonly T[],
  work: (session: T, time: (op: () => Promise<unknown>) => Promise<void>) => Promise<void>,
): Promise<{ p50: number; p99: number; seconds: number }> {
  const samples: number[] = [];
  const time = async (op: () => Promise<unknown>) => {
    const started = performance.now();
    await op();
    samples.push(performance.now() - started);
  };
  const started = performance.now();
  await Promise.all(sessions.map((session) => work(session, time)));
  const seconds = (performance.now() - started) / 1000;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), seconds };
}

/** The server's CPU time (user + system) between the marks the load sends: what a phase cost the server. */
function serverCpu() {
  const started = new Map<string, NodeJS.CpuUsage>();
  const spentUs = new Map<string, number>();
  return {
    mark(phase: string) {
      const begun = started.get(phase);
      if (!begun) return void started.set(phase, process.cpuUsage());
      const used = process.cpuUsage(begun);
      spentUs.set(phase, used.user + used.system);
    },
    spent: (phase: string) => spentUs.get(phase) ?? Number.NaN,
  };
}

/** Tells the server when a phase begins and ends (it measures its own CPU), around `work`. */
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const mark = () => new Promise<void>((resolve) => process.send!({ phase: name }, () => resolve()));
  await mark();
  const result = await work();
  await mark();
  return result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const [role, port] = process.argv.slice(2);
if (role === '--tool') {
  await runTool(Number(port));
  process.send!('ready');
} else if (role === '--load') {
  const result = await runLoad(Number(port));
  process.send!(result, () => process.exit(0));
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchMcp();
  process.exit(0);
}
