import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClients } from './testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { McpSessionEnded, McpSessionList } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';

// Operators see which MCP clients are joined as which participant, and may end a session: its waiting calls are
// withdrawn and its client's next request is told the session is gone (404), as after its own DELETE.

const CONFIG = spaceConfig('sessions', {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'mcp/request', payload: { method: 'tools/list' } }, { kind: ['mcp/proposal', 'mcp/withdraw', 'chat'] }],
  tools: [{ kind: 'mcp/response' }],
  viewer: [{ kind: 'chat' }],
});

let gw: TestGateway;
let participants: ReturnType<typeof participantFactory>;
let lead: MEWParticipant;
const clients = mcpClients();

beforeAll(async () => {
  gw = await startTestGateway(CONFIG);
  participants = participantFactory('sessions', () => gw.wsUrl(), tokenOf);
  const tools = participants.create('tools', { autoDiscovery: false });
  tools.tools.register({ name: 'deploy', description: 'Deploys', security: { risk_level: 'dangerous' }, execute: () => 'deployed' });
  await tools.connect();
  lead = await participants.connect('lead', { autoDiscovery: false });
});
afterEach(async () => {
  await clients.endAll();
});
afterAll(async () => {
  participants.disconnectAll();
  await gw.close();
});

const mcpClient = (id: string, info = { name: 'Claude Code', version: '1.0.3' }) => clients.connect(gw.httpUrl('/mcp/sessions'), tokenOf(id), { info });

const api = (path: string, as: string, method = 'GET') =>
  fetch(gw.httpUrl(`/api/spaces/sessions/mcp/sessions${path}`), { method, headers: { Authorization: `Bearer ${tokenOf(as)}` } });

async function list(as = 'viewer', query = ''): Promise<McpSessionList['sessions']> {
  const response = await api(query, as);
  expect(response.status).toBe(200);
  return ((await response.json()) as McpSessionList).sessions;
}

describe('MCP sessions API', () => {
  it('lists each session to members: its participant, its client, times and waiting calls, never its id', async () => {
    const client = await mcpClient('agent');
    await mcpClient('viewer', { name: 'Cursor', version: '0.50.0' });
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const sessions = await list();
    expect(sessions.map((s) => [s.participant, s.client]).sort()).toEqual([
      ['agent', { name: 'Claude Code', version: '1.0.3' }],
      ['viewer', { name: 'Cursor', version: '0.50.0' }],
    ]);
    const agent = sessions.find((s) => s.participant === 'agent')!;
    expect(agent).toMatchObject({ id_prefix: sessionId.slice(0, 8), waiting: 0 });
    expect(Date.parse(agent.last_used_at)).toBeGreaterThanOrEqual(Date.parse(agent.opened_at));
    expect(JSON.stringify(sessions)).not.toContain(sessionId);
    expect((await list('viewer', '?participant=agent')).map((s) => s.participant)).toEqual(['agent']);
    expect((await fetch(gw.httpUrl('/api/spaces/sessions/mcp/sessions'))).status).toBe(401);
  });

  it('lets only operators end a session: its waiting proposal is withdrawn, its client told the session is gone; audited', async () => {
    const client = await mcpClient('agent');
    const transport = client.transport as StreamableHTTPClientTransport;
    const call = client.callTool({ name: 'tools__deploy', arguments: {} });
    await expect.poll(() => lead.proposals.pending().filter((p) => p.proposer === 'agent').length, { timeout: 5_000 }).toBe(1);
    const proposal = lead.proposals.pending().find((p) => p.proposer === 'agent')!;
    await expect.poll(async () => (await list()).find((s) => s.participant === 'agent')?.waiting).toBe(1);
    const prefix = transport.sessionId!.slice(0, 8);

    const refused = await api(`/${prefix}`, 'viewer', 'DELETE');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'capability_violation' });
    expect(lead.proposals.get(proposal.id)?.state).toBe('pending');

    const ended = await api(`/${prefix}`, 'lead', 'DELETE');
    expect(ended.status).toBe(200);
    expect(((await ended.json()) as McpSessionEnded).ended).toMatchObject({ participant: 'agent', id_prefix: prefix, client: { name: 'Claude Code' } });
    await expect.poll(() => lead.proposals.get(proposal.id)?.state, { timeout: 5_000 }).toBe('withdrawn');
    expect(await list()).toEqual([]);
    // The client's next request on the session: the transport's "session not found".
    const next = await fetch(gw.httpUrl('/mcp/sessions'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenOf('agent')}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(next.status).toBe(404);
    // The waiting call ends too: told so if its answer still reached the client, else failed with the session.
    expect(await call.catch(() => ({ isError: true }))).toMatchObject({ isError: true });
    await client.close();
    expect(gw.audit.query({ space: 'sessions', type: ['MCP_SESSION_ENDED'] }).at(-1)).toMatchObject({
      actor: 'lead',
      subject: 'agent',
      details: { id_prefix: prefix, client: 'Claude Code', client_version: '1.0.3', withdrawn: 1 },
    });
  });

  it('answers an unknown prefix with 404 and a list method mistake with 405, both as JSON', async () => {
    await mcpClient('agent');
    const unknown = await api('/zzzzzzzz', 'lead', 'DELETE');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'unknown_mcp_session' });
    expect((await api('', 'lead', 'DELETE')).status).toBe(405);
    expect(await list()).toHaveLength(1);
  });
});
