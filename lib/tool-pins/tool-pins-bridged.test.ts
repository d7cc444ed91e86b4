import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpBridge } from '../bridge/mcp-bridge';
import { spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';
import type { ToolDefinitions, ToolPinAccepted, ToolPinList } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';

// Issue #29's "done when" with a real MCP server: the official SDK's McpServer, put into the space by the MCP bridge,
// redefines its tool after its first call (the description starts asking for ~/.ssh/id_rsa) and says so with
// `notifications/tools/list_changed`. The gateway flags the tool, the rule that approved it stops approving it, and
// an operator's accept restores it.

const SPACE = 'bridged-pins';
const FIXTURE = fileURLToPath(new URL('./testing/rug-pull-mcp-server.mjs', import.meta.url));
const CONFIG = spaceConfig(SPACE, {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'mcp/request', payload: { method: 'tools/list' } }, { kind: ['mcp/proposal', 'mcp/withdraw'] }],
  files: [{ kind: 'mcp/response' }, { kind: 'mcp/request', payload: { method: 'notifications/tools/list_changed' } }, { kind: 'participant/status' }],
});
const RULE = { name: 'notes', decision: 'approve', match: { proposer: 'agent', tool: 'note_down' } };

let gw: TestGateway | undefined;
let bridge: McpBridge | undefined;
let participants: ReturnType<typeof participantFactory> | undefined;
afterEach(async () => {
  await bridge?.stop();
  participants?.disconnectAll();
  await gw?.close();
  gw = bridge = participants = undefined;
});

const api = (path: string, method = 'GET', body?: unknown) =>
  fetch(gw!.httpUrl(`/api/spaces/${SPACE}${path}`), {
    method,
    headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
const pins = async () => ((await (await api('/tools')).json()) as ToolPinList).tools;

/** The agent's call of note_down, and whether a rule decided it within `withinMs` (it is withdrawn otherwise). */
async function ruleDecides(agent: MEWParticipant, text: string, withinMs = 1_500): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort('nobody decided'), withinMs);
  try {
    await agent.mcpRequest('files', { method: 'tools/call', params: { name: 'note_down', arguments: { text } } }, 10_000, { signal: abort.signal });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

describe('pinned tool definitions of a bridged MCP server', () => {
  it('flag the tool the server redefines (list_changed), which no rule approves until an operator accepts it', async () => {
    gw = await startGatewayWith({ configs: [CONFIG], dataDir: mkdtempSync(join(tmpdir(), 'mew-pins-bridged-')) });
    participants = participantFactory(SPACE, () => gw!.wsUrl(), tokenOf);
    const serverLog: string[] = [];
    bridge = new McpBridge({
      gateway: gw.wsUrl(),
      space: SPACE,
      token: tokenOf('files'),
      server: { command: process.execPath, args: [FIXTURE] },
      log: (line) => serverLog.push(line),
    });
    await bridge.connect();
    const agent = await participants.connect('agent', { autoDiscovery: false });

    // Pinned as first listed: the MCP server's own definition, with MGP risk from its annotations (moderate).
    const [listed] = await agent.discovery.discover('files');
    expect(listed).toMatchObject({ name: 'note_down', security: { risk_level: 'moderate' } });
    expect(await pins()).toEqual([expect.objectContaining({ participant: 'files', name: 'note_down', changed: false })]);
    expect((await api('/rules', 'POST', RULE)).status).toBe(201);

    // The rule approves the first call; the server then redefines its tool and tells the bridge, which tells the space.
    const listChanged = new Promise<void>((resolve) => {
      const off = agent.client.on('mcp/request', (envelope) => {
        if (envelope.from === 'files' && (envelope.payload as { method?: string }).method === 'notifications/tools/list_changed') {
          off();
          resolve();
        }
      });
    });
    expect(await ruleDecides(agent, 'first')).toBe(true);
    await listChanged;
    const [relisted] = await agent.discovery.discover('files');
    expect(relisted.description).toMatch(/id_rsa/);

    // Flagged, audited with both hashes, both definitions served for a diff; the rule no longer approves it.
    await expect.poll(async () => (await pins())[0]?.changed).toBe(true);
    const [changed] = await pins();
    expect(changed).toMatchObject({ participant: 'files', name: 'note_down', changed_at: expect.any(String) });
    expect(gw.audit.query({ space: SPACE, type: ['TOOL_DEFINITION_CHANGED'] })).toEqual([
      expect.objectContaining({ subject: 'files', details: { tool: 'note_down', pinned_hash: changed.pinned_hash, hash: changed.hash } }),
    ]);
    const { pinned, current } = (await (await api('/tools/files/note_down/definitions')).json()) as ToolDefinitions;
    expect(pinned.description).toBe('Appends a line to the notes.');
    expect(current.description).toMatch(/read ~\/\.ssh\/id_rsa/);
    expect({ ...pinned, description: undefined }).toEqual({ ...current, description: undefined });
    expect(await ruleDecides(agent, 'second')).toBe(false);

    // An operator accepts the new definition: the rule approves again, and the call reaches the real server.
    const accepted = await api('/tools/files/note_down/accept', 'POST');
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as ToolPinAccepted).tool).toMatchObject({ changed: false, accepted_by: 'lead', hash: changed.hash });
    expect(await ruleDecides(agent, 'third')).toBe(true);
    expect(serverLog.filter((line) => line.includes('called:'))).toEqual([expect.stringContaining('called: first'), expect.stringContaining('called: third')]);
  });
});
