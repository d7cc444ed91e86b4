import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from '../sdk/mew-participant';
import { mcpClients } from './testing';
import { nextEvent, participantFactory } from '../sdk/testing';
import { ASK_HUMAN_TOOL } from './ask-human-tool';
import { TOOL_META } from './mcp-session';

// Any MCP client joins a space as one of its participants (`/mcp/{space}`): it lists the space's tools, calls the
// ones it may call, and its calls of the others wait for a supervisor's decision — tested with the official SDK's
// client over Streamable HTTP, against the real server.

const AGENT = [
  { kind: 'mcp/request', payload: { method: 'tools/list' } },
  { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_note' } } },
  { kind: 'mcp/proposal', payload: { method: 'tools/call' } },
  { kind: ['mcp/withdraw', 'chat'] },
];
const CONFIG = spaceConfig('crew', {
  lead: [{ kind: '*' }],
  agent: AGENT,
  tools: [{ kind: 'mcp/response' }],
  viewer: [{ kind: 'chat' }],
  // May only propose: it cannot ask for listings itself.
  proposer: [{ kind: ['mcp/proposal', 'mcp/withdraw'] }],
});

let gw: TestGateway;
let participants: ReturnType<typeof participantFactory>;
let lead: MEWParticipant;
const notes: string[] = [];
const clients = mcpClients();

beforeAll(async () => {
  gw = await startTestGateway(CONFIG);
  participants = participantFactory('crew', () => gw.wsUrl(), tokenOf);
  const tools = participants.create('tools', { autoDiscovery: false });
  tools.tools.register({
    name: 'read_note',
    description: 'Reads a note',
    security: { risk_level: 'safe' },
    execute: ({ path }) => `note ${String(path)}: hello`,
  });
  tools.tools.register({
    name: 'write_note',
    description: 'Writes a note',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    security: { risk_level: 'moderate' },
    execute: ({ text }) => (notes.push(String(text)), `written: ${String(text)}`),
  });
  await tools.connect();
  lead = await participants.connect('lead', { autoDiscovery: false });
});
afterEach(async () => {
  await clients.endAll();
  await expect.poll(() => gw.gateway.spaces.get('crew')!.participants.get('agent')!.online).toBe(false);
  await expect.poll(() => gw.gateway.spaces.get('crew')!.participants.get('proposer')!.online).toBe(false);
});
afterAll(async () => {
  participants.disconnectAll();
  await gw.close();
});

const mcpClient = (id = 'agent', how: 'header' | 'query' = 'header') => clients.connect(gw.httpUrl('/mcp/crew'), tokenOf(id), { how });

const pendingOf = async (tool: string) => {
  await expect.poll(() => lead.proposals.pending().filter((p) => p.proposer === 'agent').length, { timeout: 5_000 }).toBe(1);
  const proposal = lead.proposals.pending().find((p) => p.proposer === 'agent')!;
  expect([proposal.method, proposal.toolName, proposal.target]).toEqual(['tools/call', tool, 'tools']);
  return proposal;
};

describe('the space as an MCP server', () => {
  it('refuses a client without a valid token: 401 with a JSON body and WWW-Authenticate', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const headers of [{}, { Authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const response = await fetch(gw.httpUrl('/mcp/crew'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await response.json()).toMatchObject({ error: 'invalid_token' });
    }
  });

  it('lists the tools it may call or propose, named <participant>__<tool>, and is present as its participant', async () => {
    const client = await mcpClient();
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t._meta?.[TOOL_META.approval]])).toEqual([
      [ASK_HUMAN_TOOL, undefined],
      ['tools__read_note', 'direct'],
      ['tools__write_note', 'proposal'],
    ]);
    const write = tools.find((t) => t.name === 'tools__write_note')!;
    expect(write).toMatchObject({
      inputSchema: { type: 'object', required: ['text'] },
      annotations: { readOnlyHint: false, destructiveHint: false },
      _meta: { [TOOL_META.participant]: 'tools', [TOOL_META.tool]: 'write_note' },
    });
    expect(gw.gateway.spaces.get('crew')!.participants.get('agent')!.online).toBe(true);
    // A participant that may neither call nor propose them sees none of them (it may chat, so it may ask a human).
    expect((await (await mcpClient('viewer', 'query')).listTools()).tools.map((t) => t.name)).toEqual([ASK_HUMAN_TOOL]);
  });

  it('lists what the space has seen listed to a client that may only propose, and holds its calls for approval', async () => {
    await lead.mcpRequest('tools', { method: 'tools/list' });
    const client = await mcpClient('proposer');
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => [t.name, t._meta?.[TOOL_META.approval]]))
      .toEqual([
        ['tools__read_note', 'proposal'],
        ['tools__write_note', 'proposal'],
      ]);
    const call = client.callTool({ name: 'tools__read_note', arguments: { path: 'b.md' } });
    await expect.poll(() => lead.proposals.pending().find((p) => p.proposer === 'proposer')?.toolName, { timeout: 5_000 }).toBe('read_note');
    await lead.proposals.fulfil(lead.proposals.pending().find((p) => p.proposer === 'proposer')!.id).outcome;
    expect(await call).toEqual({ content: [{ type: 'text', text: 'note b.md: hello' }] });
  });

  it('calls a tool it may call at once, the result returned as the tool gave it', async () => {
    const client = await mcpClient();
    await client.listTools();
    expect(await client.callTool({ name: 'tools__read_note', arguments: { path: 'a.md' } })).toEqual({ content: [{ type: 'text', text: 'note a.md: hello' }] });
    // Nothing to wait for but the tool: one JSON body, no event stream to set up.
    const direct = await fetch(gw.httpUrl('/mcp/crew'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenOf('agent')}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': (client.transport as StreamableHTTPClientTransport).sessionId!,
        'Mcp-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'tools/call', params: { name: 'tools__read_note', arguments: { path: 'b.md' } } }),
    });
    expect(direct.headers.get('content-type')).toMatch(/^application\/json/);
    expect(direct.headers.get('mcp-session-id')).toBe((client.transport as StreamableHTTPClientTransport).sessionId);
    expect(await direct.json()).toEqual({ jsonrpc: '2.0', id: 'raw-1', result: { content: [{ type: 'text', text: 'note b.md: hello' }] } });
    expect(await client.callTool({ name: 'nobody__nothing', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/No tool "nobody__nothing"/) }],
    });
  });

  it('holds a call that must be proposed until a supervisor approves it, reporting progress, then returns the result', async () => {
    const client = await mcpClient();
    const progress: unknown[] = [];
    const call = client.callTool({ name: 'tools__write_note', arguments: { text: 'ship it' } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
    });
    const proposal = await pendingOf('write_note');
    expect(notes).not.toContain('ship it');
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ progress: 0, message: expect.stringMatching(/waiting for a supervisor/) });
    await lead.proposals.fulfil(proposal.id).outcome;
    expect(await call).toEqual({ content: [{ type: 'text', text: 'written: ship it' }] });
    expect(notes).toEqual(['ship it']);
    // Audited as the participant it is.
    expect(gw.audit.query({ space: 'crew', type: ['PROPOSAL_FULFILLED'] }).at(-1)).toMatchObject({ actor: 'lead', subject: 'agent' });
    // Recorded as waited on while it waited (a restart would withdraw it), and no longer.
    expect(gw.host('crew').context.database.db.prepare('SELECT COUNT(*) AS n FROM mcp_open_proposals').get()).toEqual({ n: 0 });
  });

  it('runs a call that waits for approval as a task when the client asks for one; cancelling the task withdraws it', async () => {
    const client = await mcpClient();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'tools__write_note')?.execution).toEqual({ taskSupport: 'optional' });
    const messages: { type: string; task?: { taskId: string; status: string }; result?: unknown }[] = [];
    const streamed = (async () => {
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'tools__write_note', arguments: { text: 'as a task' } },
        CallToolResultSchema,
        {
          task: { ttl: 60_000 },
        },
      ))
        messages.push(message as (typeof messages)[number]);
    })();
    const proposal = await pendingOf('write_note');
    await expect.poll(() => messages[0]?.type).toBe('taskCreated');
    await lead.proposals.fulfil(proposal.id).outcome;
    await streamed;
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'written: as a task' }] } });
    expect(notes).toContain('as a task');

    const cancelled: { type: string; task?: { taskId: string } }[] = [];
    const second = (async () => {
      for await (const message of client.experimental.tasks.callToolStream({ name: 'tools__write_note', arguments: { text: 'never' } }, CallToolResultSchema, {
        task: { ttl: 60_000 },
      }))
        cancelled.push(message as (typeof cancelled)[number]);
    })().catch(() => undefined);
    await pendingOf('write_note');
    await expect.poll(() => cancelled[0]?.task?.taskId).toBeDefined();
    await client.experimental.tasks.cancelTask(cancelled[0].task!.taskId);
    await expect.poll(() => lead.proposals.pending().filter((p) => p.proposer === 'agent').length, { timeout: 5_000 }).toBe(0);
    await second;
    expect(notes).not.toContain('never');
  });

  it('returns a rejection as isError with its reason and explanation', async () => {
    const client = await mcpClient();
    const call = client.callTool({ name: 'tools__write_note', arguments: { text: 'rm -rf' } });
    const proposal = await pendingOf('write_note');
    lead.proposals.reject(proposal.id, 'unsafe', 'Not in the notes folder, please.');
    expect(await call).toEqual({ isError: true, content: [{ type: 'text', text: 'Rejected by lead (unsafe): Not in the notes folder, please.' }] });
    expect(notes).not.toContain('rm -rf');
  });

  it('withdraws the proposal of a call the client cancels', async () => {
    const client = await mcpClient();
    const abort = new AbortController();
    const call = client.callTool({ name: 'tools__write_note', arguments: { text: 'never mind' } }, undefined, { signal: abort.signal });
    const proposal = await pendingOf('write_note');
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expect.poll(() => lead.proposals.get(proposal.id)?.state, { timeout: 5_000 }).toBe('withdrawn');
  });

  it('withdraws the proposal of a call under way when the client ends its session', async () => {
    const client = await mcpClient();
    const transport = client.transport as StreamableHTTPClientTransport;
    const call = client.callTool({ name: 'tools__write_note', arguments: { text: 'abandoned' } });
    const proposal = await pendingOf('write_note');
    await transport.terminateSession(); // DELETE
    await expect.poll(() => lead.proposals.get(proposal.id)?.state, { timeout: 5_000 }).toBe('withdrawn');
    await client.close(); // its pending request fails here: the server ended the session
    await expect(call).rejects.toThrow();
    // Its participant's connection ended with it (afterEach: offline once every session has ended).
  });

  it('withdraws the proposal of a call whose client went away without ending its session', async () => {
    const client = await mcpClient();
    const call = client.callTool({ name: 'tools__write_note', arguments: { text: 'dropped' } });
    const proposal = await pendingOf('write_note');
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    await client.close(); // the HTTP request is cut, as when the client process dies: no cancel, no DELETE
    await expect(call).rejects.toThrow();
    await expect.poll(() => lead.proposals.get(proposal.id)?.state, { timeout: 5_000 }).toBe('withdrawn');
    expect(notes).not.toContain('dropped');
    // The session itself waits for its client to come back (or for the idle timeout): ended here by hand.
    const ended = await fetch(gw.httpUrl('/mcp/crew'), {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${tokenOf('agent')}`, 'Mcp-Session-Id': sessionId },
    });
    expect(ended.status).toBe(200);
  });

  it('asks the space a question and returns the answer correlated to it', async () => {
    const client = await mcpClient();
    const answered = client.callTool({ name: ASK_HUMAN_TOOL, arguments: { question: 'Which branch should I deploy?' } });
    const question = await nextEvent(lead.client, 'chat', (chat) => chat.from === 'agent');
    expect(question.payload).toEqual({ text: 'Which branch should I deploy?', question: true });
    lead.chat.send('main, after the release notes', undefined, { correlationId: [question.id] });
    expect(await answered).toEqual({
      content: [{ type: 'text', text: 'lead: main, after the release notes' }],
      structuredContent: { answer: 'main, after the release notes', from: 'lead' },
    });
    expect(await client.callTool({ name: ASK_HUMAN_TOOL, arguments: { question: '  ' } })).toMatchObject({ isError: true });
  });

  it('answers bad input clearly: malformed JSON, an unknown session, a request without a session, an oversized body', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(gw.httpUrl('/mcp/crew'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenOf('agent')}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body,
      });
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const unknown = await post(list, { 'Mcp-Session-Id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32001 } });
    expect((await post(list)).status).toBe(400);
    const huge = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(huge.status).toBe(413);
    // On a session, what the transport spec refuses is refused as the SDK's transport does, whichever answers it.
    const session = { 'Mcp-Session-Id': ((await mcpClient()).transport as StreamableHTTPClientTransport).sessionId! };
    expect((await post(list, { ...session, Accept: 'application/json' })).status).toBe(406);
    expect((await post(list, { ...session, 'Content-Type': 'text/plain' })).status).toBe(415);
    const unsupported = await post(list, { ...session, 'Mcp-Protocol-Version': '1999-01-01' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ error: { message: expect.stringMatching(/Unsupported protocol version/) } });
    const badParams = await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } }), session);
    expect(await badParams.json()).toMatchObject({ jsonrpc: '2.0', id: 4, error: { message: expect.stringMatching(/cursor/) } });
  });
});
