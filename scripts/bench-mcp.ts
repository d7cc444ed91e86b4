/**
 * What the space's MCP endpoint (`/mcp/{space}`) costs (`npm run bench`, or alone with `node --import tsx
 * scripts/bench-mcp.ts`). The server (gateway and MCP endpoint, as production runs them) is this process; the load
 * runs in a child, as real clients would: a tool participant, a MEW participant calling it directly, and MCP clients
 * (the official SDK's, Streamable HTTP). Measured: a direct `tools/call` by an MCP client against the same call by the
 * MEW participant, then 200 concurrent MCP sessions (200 participants) listing and calling. Targets: ≤ 1 ms added at
 * p50; p99 ≤ 50 ms with 200 sessions. Numbers, not assertions.
 */
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseSpaceConfig } from '../lib/gateway/space-config';
import { createGatewayServer } from '../lib/host/gateway-server';
import { mcpEndpointFeature } from '../lib/mcp-server/mcp-endpoint-feature';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { timed, type LatencyRow } from './bench-bridge';

const CALLS = 1000;
const SESSIONS = 200;
/** Each concurrent session lists once and calls this many times. */
const CALLS_PER_SESSION = 10;
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
  try {
    const load = fork(fileURLToPath(import.meta.url), ['--load', String(port)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const rows = await new Promise<LatencyRow[]>((resolve, reject) => {
      load.once('message', (message) => resolve(message as LatencyRow[]));
      load.once('exit', (code) => reject(new Error(`the load process exited (${code}) before reporting`)));
    });
    console.log(`\nMCP endpoint: a tools/call through /mcp (${CALLS} sequential calls; target ≤ 1 ms added at p50, p99 ≤ 50 ms with ${SESSIONS} sessions)\n`);
    console.log(`${'measurement'.padEnd(64)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
    for (const row of rows) console.log(`${row.name.padEnd(64)} ${row.p50.toFixed(2).padStart(7)} ${(row.p99?.toFixed(2) ?? '–').padStart(7)}`);
    return rows;
  } finally {
    await server.close();
  }
}

/** The load, in the child: measures and sends the rows to the parent. */
async function runLoad(port: number): Promise<LatencyRow[]> {
  const connection = (token: string) => ({ gateway: `ws://127.0.0.1:${port}/ws`, space: SPACE, token, autoDiscovery: false });
  const tool = new MEWParticipant(connection(TOKENS.tool));
  tool.tools.register({ name: 'note', inputSchema: { type: 'object' }, execute: () => 'noted' });
  const agent = new MEWParticipant(connection(TOKENS.agent));
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
    await Promise.all([tool.connect(), agent.connect()]);
    const call = { method: 'tools/call', params: { name: 'note', arguments: { path: 'notes/today.md' } } };
    const direct = await timed(() => agent.mcpRequest('tool', call), CALLS);
    const first = await mcpClient(TOKENS.agent);
    await first.listTools();
    const viaMcp = await timed(() => first.callTool({ name: 'tool__note', arguments: { path: 'notes/today.md' } }), CALLS);
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => mcpClient(clientToken(i))));
    const samples: number[] = [];
    const time = async (op: () => Promise<unknown>) => {
      const started = performance.now();
      await op();
      samples.push(performance.now() - started);
    };
    await Promise.all(
      sessions.map(async (session) => {
        await time(() => session.listTools());
        for (let i = 0; i < CALLS_PER_SESSION; i++) await time(() => session.callTool({ name: 'tool__note', arguments: { path: `notes/${i}.md` } }));
      }),
    );
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
    return [
      { name: 'direct tools/call by a MEW participant', ...direct },
      { name: 'the same call by an MCP client through /mcp', ...viaMcp },
      { name: 'added by the MCP endpoint', p50: viaMcp.p50 - direct.p50 },
      { name: `${SESSIONS} concurrent sessions: list + ${CALLS_PER_SESSION} calls each`, p50: at(0.5), p99: at(0.99) },
    ];
  } finally {
    await Promise.all(clients.map((c) => (c.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined)));
    await Promise.all(clients.map((c) => c.close()));
    for (const p of [tool, agent]) p.disconnect();
  }
}

if (process.argv[2] === '--load') {
  const rows = await runLoad(Number(process.argv[3]));
  process.send!(rows, () => process.exit(0));
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchMcp();
  process.exit(0);
}
