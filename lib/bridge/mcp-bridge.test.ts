import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MEWParticipant } from '../sdk/mew-participant';
import { McpError } from '../sdk/sdk-errors';
import { rejectionOf } from '../sdk/testing';
import { MGP_ERROR_CODES } from './bridge-defaults';
import { filesystemServer } from './filesystem-server';
import { type BridgedSpace, startBridgedSpace } from './testing/bridged-space';

const SPACE = 'bridged';
const FIXTURE = fileURLToPath(new URL('./testing/mgp-fixture-server.mjs', import.meta.url));

describe('MCP bridge', () => {
  let bridged: BridgedSpace;
  let human: MEWParticipant;
  let sandbox: string;

  beforeEach(async () => {
    bridged = await startBridgedSpace(SPACE);
    human = bridged.human;
    sandbox = await mkdtemp(join(tmpdir(), 'mew-bridge-'));
    await writeFile(join(sandbox, 'hello.txt'), 'hello from the sandbox');
  });
  afterEach(async () => {
    await bridged.close();
    await rm(sandbox, { recursive: true, force: true });
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    human.mcpRequest('files', { method: 'tools/call', params: { name, arguments: args } }, 10_000) as Promise<{
      content: { text: string }[];
      isError?: boolean;
    }>;

  it('serves the real filesystem server’s tools with MGP risk from their annotations, and calls them', async () => {
    const ready = bridged.statusReport('ready');
    await bridged.startBridge(filesystemServer(sandbox));
    expect((await ready).payload).toMatchObject({ status: expect.stringMatching(/^ready: \d+ tools from secure-filesystem-server$/) });

    const tools = await human.discovery.discover('files');
    const risk = Object.fromEntries(tools.map((tool) => [tool.name, tool.security]));
    expect(risk.read_text_file).toMatchObject({ risk_level: 'safe' });
    expect(risk.write_file).toMatchObject({ risk_level: 'dangerous', confirmation_required: true });
    expect(risk.create_directory).toMatchObject({ risk_level: 'moderate' });

    expect((await call('read_text_file', { path: 'hello.txt' })).content[0].text).toBe('hello from the sandbox');
    await call('write_file', { path: 'new.md', content: '# new' });
    expect((await call('read_text_file', { path: 'new.md' })).content[0].text).toBe('# new');
    // The server refuses an escape from its directory; the caller sees the server's own error.
    const outside = await call('read_text_file', { path: '../../etc/passwd' });
    expect(outside.isError).toBe(true);
    expect(outside.content[0].text).toMatch(/Access denied/);
    // Lifecycle methods are the bridge's own, never the space's.
    const initialize = await rejectionOf(human.mcpRequest('files', { method: 'initialize', params: {} }, 5000));
    expect(initialize).toBeInstanceOf(McpError);
    expect(initialize.code).toBe(-32601);
  });

  it('restarts a killed server with backoff; calls meanwhile get an MGP lifecycle error, not a hang', async () => {
    const bridge = await bridged.startBridge(filesystemServer(sandbox), { backoff: { minDelayMs: 1_000, maxDelayMs: 1_000 } });
    await human.discovery.discover('files');
    const { pid } = bridge.upstream.status;
    const restarting = bridged.statusReport('restarting');
    process.kill(pid!, 'SIGKILL');
    expect((await restarting).payload).toMatchObject({ status: expect.stringMatching(/^MCP server killed by SIGKILL: restarting in \d s$/) });

    const refused = await rejectionOf(call('read_text_file', { path: 'hello.txt' }));
    expect(refused).toMatchObject({ code: MGP_ERROR_CODES.serverRestarting, data: { _mgp: { category: 'lifecycle', retryable: true } } });

    await bridged.statusReport('ready');
    expect(bridge.upstream.status).toMatchObject({ restarts: 1 });
    expect((await call('read_text_file', { path: 'hello.txt' })).content[0].text).toBe('hello from the sandbox');
  });

  it('gives up on a server that never initialises: each start times out, and calls fail at once', async () => {
    const bridge = await bridged.startBridge(
      { command: process.execPath, args: [FIXTURE, '--hang'] },
      { initializeTimeoutMs: 150, backoff: { minDelayMs: 20, maxDelayMs: 20, maxRestarts: 2 } },
    );
    const crashed = await bridged.statusReport('crashed');
    expect(crashed.payload).toMatchObject({ status: expect.stringMatching(/^MCP server down \(initialize failed: .*\): restart me to try again$/) });
    expect(bridge.upstream.status.restarts).toBe(2);
    const refused = await rejectionOf(call('echo'));
    expect(refused).toMatchObject({ code: MGP_ERROR_CODES.serverNotReady, data: { _mgp: { retryable: false } } });
  });

  it('speaks MGP with a server that does: its own security metadata wins, and its structured errors pass through', async () => {
    const bridge = await bridged.startBridge({ command: process.execPath, args: [FIXTURE] });
    const tools = await human.discovery.discover('files');
    // The fixture marks echo destructive in its annotations but declares it safe in MGP terms: MGP's word wins.
    expect(tools.find((tool) => tool.name === 'echo')?.security).toMatchObject({ risk_level: 'safe' });
    expect(tools.find((tool) => tool.name === 'add_tool')?.security).toMatchObject({ risk_level: 'moderate' });
    expect(bridge.upstream.status.mgpExtensions).toEqual(['security', 'error_handling']);

    const busy = await rejectionOf(call('busy'));
    expect(busy).toMatchObject({ code: 3000, reason: 'Rate limited', data: { _mgp: { retryable: true, retry_after_ms: 5000 } } });
  });

  it('tells the space when the server’s tools change, and participants who listed them list again', async () => {
    await bridged.startBridge({ command: process.execPath, args: [FIXTURE] });
    expect((await human.discovery.discover('files')).map((tool) => tool.name)).not.toContain('extra_3');
    const changed = new Promise<void>((resolve) =>
      human.on('discovery', ({ participantId, status }) => {
        if (participantId === 'files' && status.tools.some((tool) => tool.name === 'extra_3')) resolve();
      }),
    );
    await call('add_tool');
    await changed;
    expect(human.discovery.available().find((tool) => tool.name === 'extra_3')?.security).toMatchObject({ risk_level: 'safe' });
  });
});
