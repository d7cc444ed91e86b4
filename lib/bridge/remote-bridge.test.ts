import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startGatewayWith, tokenOf } from '../gateway/testing';
import { parseSpaceConfig } from '../gateway/space-config';
import { LAUNCH_SECTION, launchedOf } from '../launcher/launch-config';
import { SpaceLauncher } from '../launcher/space-launcher';
import { RUNNER_EXIT_CODES, runnerConnectionEnv } from '../launcher/runner-convention';
import { participantsToLaunch } from '../launcher/testing';
import type { AnyEnvelope } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory, rejectionOf } from '../sdk/testing';
import { MGP_ERROR_CODES } from './bridge-defaults';
import { headerSecrets, redactor } from './redact';
import { type BridgedSpace, FILES_CAPABILITIES, startBridgedSpace } from './testing/bridged-space';
import { AuthGate, EverythingServer } from './testing/remote-servers';

const SPACE = 'remote';
const SECRET = 'sk-test-7f3a9c1e5b2d4068';

type McpServerReport = { state?: string; transport?: string; url?: string; restarts?: number; last_error?: string };
const reportOf = (envelope: AnyEnvelope) => envelope.payload as { status: string; mcp_server: McpServerReport };

describe('MCP bridge: remote MCP servers', () => {
  let bridged: BridgedSpace;
  let human: MEWParticipant;
  const servers: EverythingServer[] = [];
  const gates: AuthGate[] = [];

  beforeEach(async () => {
    bridged = await startBridgedSpace(SPACE);
    human = bridged.human;
  });
  afterEach(async () => {
    await bridged.close();
    await Promise.all(gates.splice(0).map((gate) => gate.close()));
    await Promise.all(servers.splice(0).map((server) => server.kill()));
  });

  async function everything(mode: 'streamableHttp' | 'sse', port?: number): Promise<EverythingServer> {
    const server = await EverythingServer.start(mode, port);
    servers.push(server);
    return server;
  }

  const echo = (message: string) =>
    human.mcpRequest('files', { method: 'tools/call', params: { name: 'echo', arguments: { message } } }, 10_000) as Promise<{ content: { text: string }[] }>;

  it('bridges the everything server over Streamable HTTP: a participant lists its tools, with MGP risk, and calls echo', async () => {
    const server = await everything('streamableHttp');
    const ready = bridged.statusReport('ready');
    await bridged.startBridge({ url: server.url });
    const report = reportOf(await ready);
    expect(report.status).toMatch(/^ready: \d+ tools from mcp-servers\/everything$/);
    expect(report.mcp_server).toMatchObject({ transport: 'streamable-http', url: server.url, restarts: 0 });

    const tools = await human.discovery.discover('files');
    const risk = Object.fromEntries(tools.map((tool) => [tool.name, tool.security]));
    expect(risk.echo).toMatchObject({ risk_level: 'safe' });
    expect(risk['gzip-file-as-resource']).toMatchObject({ risk_level: 'moderate', side_effects: ['network'] });

    expect((await echo('hello through the space')).content[0].text).toBe('Echo: hello through the space');
  });

  it('falls back to the legacy SSE transport when the server refuses Streamable HTTP with a 4xx', async () => {
    const server = await everything('sse');
    const ready = bridged.statusReport('ready');
    const notes: string[] = [];
    await bridged.startBridge({ url: server.url }, { log: (line) => notes.push(line) });
    expect(reportOf(await ready).mcp_server).toMatchObject({ transport: 'sse' });
    expect(notes.join('\n')).toMatch(/refused Streamable HTTP \(HTTP 404 Not Found\): trying the SSE transport/);
    expect((await echo('over SSE')).content[0].text).toBe('Echo: over SSE');
  });

  it('uses the transport a config names, and no other', async () => {
    const sse = await everything('sse');
    const ready = bridged.statusReport('ready');
    await bridged.startBridge({ url: sse.url, transport: 'sse' });
    expect(reportOf(await ready).mcp_server).toMatchObject({ transport: 'sse' });
    await bridged.stopBridges();

    // Streamable HTTP only, against a server that speaks SSE: refused, and said so; no fallback.
    const restarting = bridged.statusReport('restarting');
    const bridge = await bridged.startBridge({ url: sse.url, transport: 'streamable-http' }, { backoff: { minDelayMs: 5_000, maxDelayMs: 5_000 } });
    expect(reportOf(await restarting).status).toMatch(
      /^MCP server at http:\/\/127\.0\.0\.1:\d+\/sse down \(initialize failed: HTTP 404 Not Found\): reconnecting in \d s$/,
    );
    expect(bridge.upstream.status.transport).toBe('streamable-http');
  });

  it.each([
    ['Streamable HTTP', 'streamableHttp', 'mcp'],
    ['SSE', 'sse', 'sse'],
  ] as const)(
    'reconnects over %s with backoff when the remote server goes away; calls meanwhile get an MGP lifecycle error, not a hang',
    async (_, mode, path) => {
      const server = await everything(mode);
      const bridge = await bridged.startBridge({ url: server.url }, { backoff: { minDelayMs: 300, maxDelayMs: 300, maxRestarts: 100 } });
      await bridged.statusReport('ready');
      expect((await echo('before')).content[0].text).toBe('Echo: before');

      const restarting = bridged.statusReport('restarting');
      await server.kill();
      const down = reportOf(await restarting);
      expect(down.status).toMatch(
        new RegExp(`^MCP server at http://127\\.0\\.0\\.1:\\d+/${path} down \\(the MCP server stopped answering \\(.*\\)\\): reconnecting in \\d s$`),
      );
      const refused = await rejectionOf(echo('while down'));
      expect(refused).toMatchObject({ code: MGP_ERROR_CODES.serverRestarting, data: { _mgp: { category: 'lifecycle', retryable: true } } });

      // Each attempt meanwhile finds nobody there, and says so.
      await vi.waitFor(() => expect(bridge.upstream.status.lastError).toMatch(/^initialize failed: unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/), {
        timeout: 5_000,
      });
      const ready = bridged.statusReport('ready');
      await everything(mode, server.port);
      await ready;
      expect(bridge.upstream.status).toMatchObject({ transport: mode === 'sse' ? 'sse' : 'streamable-http' });
      expect(bridge.upstream.status.restarts).toBeGreaterThanOrEqual(2);
      expect((await echo('after')).content[0].text).toBe('Echo: after');
    },
  );

  it('pings an idle remote server, and finds one gone that left no broken connection behind (a proxy that says nothing)', async () => {
    const server = await everything('streamableHttp');
    const gate = await AuthGate.start(server.port, `Bearer ${SECRET}`, { breakStreams: false });
    gates.push(gate);
    await bridged.startBridge(
      { url: gate.url('/mcp'), headers: { Authorization: `Bearer ${SECRET}` } },
      { pingIntervalMs: 200, backoff: { minDelayMs: 5_000, maxDelayMs: 5_000 } },
    );
    await bridged.statusReport('ready');
    const restarting = bridged.statusReport('restarting');
    await server.kill();
    expect(reportOf(await restarting).status).toMatch(/down \(the MCP server stopped answering \(ping: HTTP 502 Bad Gateway\)\): reconnecting in \d s$/);
  });

  it('reports a server that refuses its credentials (401) clearly, retries with backoff, then leaves it down as a stdio server', async () => {
    const server = await everything('streamableHttp');
    const gate = await AuthGate.start(server.port, `Bearer ${SECRET}`);
    gates.push(gate);
    const notes: string[] = [];
    const restarting = bridged.statusReport('restarting');
    const crashed = bridged.statusReport('crashed');
    const bridge = await bridged.startBridge(
      { url: gate.url('/mcp'), headers: { Authorization: 'Bearer sk-wrong-0123456789' } },
      { backoff: { minDelayMs: 20, maxDelayMs: 20, maxRestarts: 2 }, log: (line) => notes.push(line) },
    );
    expect(reportOf(await restarting).status).toMatch(
      /^MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp down \(initialize failed: HTTP 401 Unauthorized: the server refused the credentials \(check the bridge's headers\)\): reconnecting in \d s$/,
    );
    const report = reportOf(await crashed);
    expect(report.status).toMatch(/down \(initialize failed: HTTP 401 Unauthorized: .*\): restart me to try again$/);
    expect(report.mcp_server).toMatchObject({ state: 'crashed', restarts: 2 });
    // No SSE attempt: the credentials were refused, not the transport. Three tries, each one POST.
    expect(gate.seen).toEqual(Array(3).fill('Bearer sk-wrong-0123456789'));
    const refused = await rejectionOf(echo('refused'));
    expect(refused).toMatchObject({ code: MGP_ERROR_CODES.serverNotReady, data: { _mgp: { retryable: false } } });
    // The gate echoed the header in its 401s; neither the log nor the space saw it.
    expect(JSON.stringify([notes, report, bridge.upstream.status])).not.toContain('sk-wrong-0123456789');

    // With the right credentials, the same server lets the bridge in.
    const ready = bridged.statusReport('ready');
    await bridged.stopBridges();
    await bridged.startBridge({ url: gate.url('/mcp'), headers: { Authorization: `Bearer ${SECRET}` } });
    await ready;
    expect((await echo('let in')).content[0].text).toBe('Echo: let in');
  });

  it('reports an unreachable server clearly and keeps trying', async () => {
    const closed = await everything('streamableHttp');
    await closed.kill();
    const restarting = bridged.statusReport('restarting');
    const bridge = await bridged.startBridge({ url: closed.url });
    expect(reportOf(await restarting).status).toMatch(
      /^MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp down \(initialize failed: unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\): reconnecting in \d s$/,
    );
    await vi.waitFor(() => expect(bridge.upstream.status.restarts).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
  });
});

describe('remote MCP servers in a space config', () => {
  const reading = (env: Record<string, string | undefined>) => ({ env, baseDir: '/srv/space', sections: [LAUNCH_SECTION] });
  const configWith = (bridge: Record<string, unknown>) => ({
    space: { id: SPACE },
    participants: { human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] }, files: { capabilities: FILES_CAPABILITIES, bridge } },
  });

  it('runs the bridge with the url and headers in its environment (templates the launcher fills), not on its command line', () => {
    const raw = configWith({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${MCP_KEY}' }, transport: 'sse' });
    const parsed = parseSpaceConfig(raw, 'space.yaml', reading({ MCP_KEY: SECRET }));
    const launch = launchedOf(parsed.participants.find((p) => p.id === 'files')!).launch!;
    expect(launch.env).toMatchObject({
      MEW_BRIDGE_URL: 'https://mcp.example.com/mcp',
      MEW_BRIDGE_HEADER_0: 'Authorization: Bearer ${MCP_KEY}',
      MEW_TOKEN: '${TOKEN}',
    });
    expect(launch.args.slice(-2)).toEqual(['--transport', 'sse']);
    expect(JSON.stringify(launch)).not.toContain(SECRET);
    expect(launch).toMatchObject({ finalExitCodes: new Set([64, 77, 78]), restartNowExitCode: 75 });
  });

  it('refuses a header ${NAME} nobody can fill, naming the field, and other ill-formed entries', () => {
    const load =
      (bridge: Record<string, unknown>, env: Record<string, string | undefined> = {}) =>
      () =>
        parseSpaceConfig(configWith(bridge), 'space.yaml', reading(env));
    expect(load({ url: 'https://mcp.example.com/mcp', headers: { 'X-Api-Key': '${MEW_TEST_SURELY_UNSET}' } })).toThrow(
      /^space\.yaml: participants\.files\.bridge\.headers\.X-Api-Key: environment variable MEW_TEST_SURELY_UNSET is not set/,
    );
    expect(load({ url: '${MCP_URL}' })).toThrow(/participants\.files\.bridge\.url: environment variable MCP_URL is not set/);
    expect(load({ url: '${MCP_URL}' }, { MCP_URL: 'https://mcp.example.com/mcp' })).not.toThrow();
    expect(load({ url: 'ftp://mcp.example.com' })).toThrow(/participants\.files\.bridge\.url: not an http:\/\/ or https:\/\/ URL/);
    expect(load({ url: 'https://mcp.example.com/mcp', args: ['x'] })).toThrow(/participants\.files\.bridge\.args: args is for a bridge with a command/);
    expect(load({ command: 'mcp-server', headers: { A: 'b' } })).toThrow(/participants\.files\.bridge\.headers: headers is for a bridge with a url/);
    expect(load({ command: 'mcp-server', url: 'https://mcp.example.com/mcp' })).toThrow(/participants\.files\.bridge\.command: give command .* or url/);
    expect(load({ url: 'https://mcp.example.com/mcp', transport: 'websocket' })).toThrow(/participants\.files\.bridge\.transport/);
    expect(load({ url: 'https://mcp.example.com/mcp', headers: { 'Bad Name': 'x' } })).toThrow(/an HTTP header name/);
  });
});

describe('a remote `bridge:` the server starts', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mew-remote-bridge-'));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('fills the header’s ${ENV}, reaches the server with it, and the secret appears in no log', async () => {
    const server = await EverythingServer.start('streamableHttp');
    const gate = await AuthGate.start(server.port, `Bearer ${SECRET}`);
    vi.stubEnv('MEW_TEST_MCP_KEY', SECRET);
    const raw = {
      space: { id: SPACE },
      participants: {
        human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
        files: { capabilities: FILES_CAPABILITIES, bridge: { url: gate.url('/mcp'), headers: { Authorization: 'Bearer ${MEW_TEST_MCP_KEY}' } } },
      },
    };
    const gw = await startGatewayWith({ configs: [raw], dataDir });
    const launcher = new SpaceLauncher({ gatewayUrl: gw.wsUrl(), port: gw.port, dataDir });
    const participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
    try {
      const human = await participants.connect('human');
      const ready = new Promise<AnyEnvelope>((resolve) =>
        human.client.on('participant/status', (envelope) => envelope.from === 'files' && reportOf(envelope).mcp_server?.state === 'ready' && resolve(envelope)),
      );
      for (const p of participantsToLaunch(gw)) launcher.add(p.space, p.participantId, p.spec, p.token);
      expect(reportOf(await ready).mcp_server).toMatchObject({ transport: 'streamable-http' });
      expect(gate.seen.every((authorization) => authorization === `Bearer ${SECRET}`)).toBe(true);

      const tools = await human.discovery.discover('files');
      expect(tools.find((tool) => tool.name === 'echo')?.security).toMatchObject({ risk_level: 'safe' });
      const answer = (await human.mcpRequest('files', { method: 'tools/call', params: { name: 'echo', arguments: { message: 'launched' } } }, 10_000)) as {
        content: { text: string }[];
      };
      expect(answer.content[0].text).toBe('Echo: launched');

      // The server goes away: the launched bridge reconnects by itself (its process stays up), and says so.
      const restarting = new Promise<void>((resolve) =>
        human.client.on('participant/status', (envelope) => envelope.from === 'files' && reportOf(envelope).mcp_server?.state === 'restarting' && resolve()),
      );
      await server.kill();
      await restarting;
      expect(launcher.status(SPACE, 'files')).toMatchObject({ state: 'running', restarts: 0 });
    } finally {
      participants.disconnectAll();
      await launcher.stopAll();
      await gate.close();
      await server.kill();
      await gw.close();
    }
    const log = await readFile(join(dataDir, SPACE, 'logs', 'files.log'), 'utf8');
    expect(log).toMatch(/bridging http:\/\/127\.0\.0\.1:\d+\/mcp into space "remote"/);
    expect(log).toMatch(/ready: mcp-servers\/everything with \d+ tools/);
    expect(log).not.toContain(SECRET);
  }, 30_000);
});

describe('run-bridge.ts with a remote server', () => {
  const RUN_BRIDGE = fileURLToPath(new URL('./run-bridge.ts', import.meta.url));

  /** Runs the bridge's runner as the launcher would: its connection and the remote server in its environment. */
  function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    const childEnv = { ...process.env };
    for (const name of Object.keys(childEnv)) if (name.startsWith('MEW_')) delete childEnv[name];
    const connection = runnerConnectionEnv({ gateway: 'ws://127.0.0.1:9/ws', space: SPACE, token: tokenOf('files') });
    const child = spawn(process.execPath, ['--import', 'tsx', RUN_BRIDGE, ...args], {
      env: { ...childEnv, ...connection, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
  }

  it.each([
    [
      'a URL that is not http(s)',
      [],
      { MEW_BRIDGE_URL: 'ftp://mcp.example.com/?key=hidden-0123456789' },
      /--url must be an http:\/\/ or https:\/\/ URL, not ftp:\/\/mcp\.example\.com\//,
    ],
    [
      'a transport it does not know',
      ['--transport', 'websocket'],
      { MEW_BRIDGE_URL: 'http://127.0.0.1:9/mcp' },
      /--transport must be one of streamable-http, sse/,
    ],
    [
      'a header that is not "Name: value"',
      [],
      { MEW_BRIDGE_URL: 'http://127.0.0.1:9/mcp', MEW_BRIDGE_HEADER_0: 'Bearer hidden-0123456789' },
      /MEW_BRIDGE_HEADER_0 must be "Name: value"/,
    ],
    ['both a URL and a command', ['--', 'mcp-server'], { MEW_BRIDGE_URL: 'http://127.0.0.1:9/mcp' }, /usage: npm run bridge/],
  ])('ends with the usage code for %s, showing no secret', { timeout: 30_000 }, async (_, args, env, message) => {
    const { code, output } = await run(args, env);
    expect(output).toMatch(message);
    expect(output).not.toContain('hidden-0123456789');
    expect(code).toBe(RUNNER_EXIT_CODES.usage);
  });
});

describe('redaction of header secrets', () => {
  it('replaces each header value, and each long word of it, wherever it appears', () => {
    const redact = redactor(headerSecrets({ Authorization: `Bearer ${SECRET}`, 'X-Short': 'abc' }));
    expect(redact(`sent Bearer ${SECRET}; the token ${SECRET} was refused; abc stays`)).toBe('sent [redacted]; the token [redacted] was refused; abc stays');
  });
});
