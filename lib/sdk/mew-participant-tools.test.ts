import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import { JSONRPC_ERROR_CODES } from '../protocol';
import type { MEWParticipant } from './mew-participant';
import { participantFactory, RELEASE_SCHEMA, VALID_RELEASE } from './testing';
import { McpError } from './sdk-errors';

const config = spaceConfig('tools', {
  calc: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  caller: [{ kind: 'mcp/request' }, { kind: 'chat' }],
  other: [{ kind: 'chat' }],
});

describe('MEWParticipant serving its tools and resources', () => {
  let gw: TestGateway;
  let calc: MEWParticipant;
  let caller: TestClient;
  const participants = participantFactory('tools', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    calc = await participants.connect('calc');
    calc.tools.register({
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        required: ['a', 'b'],
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        additionalProperties: false,
      },
      security: { risk_level: 'safe', side_effects: [] },
      execute: ({ a, b }) => Number(a) + Number(b),
    });
    calc.tools.register({
      name: 'delete_everything',
      security: { risk_level: 'dangerous', confirmation_required: true, side_effects: ['filesystem'] },
      execute: () => {
        throw new Error('refusing to delete everything');
      },
    });
    calc.tools.register({
      name: 'read_secret',
      execute: () => {
        throw new McpError(-32010, 'outside the sandbox', { path: '../secret' });
      },
    });
    calc.tools.registerResource({ uri: 'memo://notes', name: 'Notes', mimeType: 'text/plain', read: () => 'buy milk' });
    caller = await joinAs(gw, tokenOf('caller'), 'space=tools');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  /** Sends an mcp/request to calc and returns calc's mcp/response to it. */
  async function call(id: string, method: string, params?: unknown, jsonRpcId: number | string = 7) {
    caller.send({ id, kind: 'mcp/request', to: ['calc'], payload: { jsonrpc: '2.0', id: jsonRpcId, method, ...(params !== undefined && { params }) } });
    return caller.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === id);
  }

  it('answers methods it has no tool for through onRequest (e.g. initialize); others are still not found', async () => {
    calc.disconnect();
    const onRequest = vi.fn((method: string) =>
      method === 'initialize'
        ? { result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'calc', version: '1' } } }
        : undefined,
    );
    await participants.connect('calc', { onRequest });
    expect((await call('init-1', 'initialize', { protocolVersion: '2025-06-18' })).payload).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'calc', version: '1' } },
    });
    expect(onRequest).toHaveBeenCalledWith('initialize', { protocolVersion: '2025-06-18' }, expect.objectContaining({ from: 'caller' }));
    expect((await call('ping-1', 'ping')).payload.error).toEqual({ code: JSONRPC_ERROR_CODES.methodNotFound, message: 'method not found: ping' });
    expect((await call('list-1', 'tools/list')).payload.result.tools).toEqual([]); // its own methods stay its own
  });

  it('answers tools/list with every tool, its input schema and its MGP security metadata', async () => {
    const response = await call('list-1', 'tools/list');
    expect(response).toMatchObject({ from: 'calc', to: ['caller'], correlation_id: ['list-1'], payload: { jsonrpc: '2.0', id: 7 } });
    expect(response.payload.result.tools).toEqual([
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: expect.objectContaining({ required: ['a', 'b'] }),
        security: { risk_level: 'safe', side_effects: [] },
      },
      {
        name: 'delete_everything',
        inputSchema: { type: 'object' },
        security: { risk_level: 'dangerous', confirmation_required: true, side_effects: ['filesystem'] },
      },
      { name: 'read_secret', inputSchema: { type: 'object' } },
    ]);
  });

  it('runs tools/call and answers with MCP content, echoing the JSON-RPC id', async () => {
    const response = await call('call-1', 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, 'rpc-42');
    expect(response.payload).toEqual({
      jsonrpc: '2.0',
      id: 'rpc-42',
      result: { content: [{ type: 'text', text: '5' }] },
    });
  });

  it('refuses arguments that do not match the input schema with -32602 and says what is wrong', async () => {
    const response = await call('call-2', 'tools/call', { name: 'add', arguments: { a: 'two', c: 1 } });
    expect(response.payload.error.code).toBe(JSONRPC_ERROR_CODES.invalidParams);
    expect(response.payload.error.message).toContain('arguments.a: expected number, got string');
    expect(response.payload.error.message).toContain('arguments.b: is required');
    expect(response.payload.error.message).toContain('arguments.c: is not an allowed property');
  });

  it('enforces the whole input schema: pattern, oneOf, $ref/$defs, const, minItems', async () => {
    const runs: unknown[] = [];
    calc.tools.register({
      name: 'release',
      inputSchema: RELEASE_SCHEMA,
      execute: (args) => (runs.push(args), 'released'),
    });
    const valid = VALID_RELEASE;
    const invalid: [Record<string, unknown>, string][] = [
      [{ ...valid, version: 'latest' }, 'arguments.version'],
      [{ ...valid, channel: 'nightly' }, 'arguments.channel'],
      [{ ...valid, targets: [] }, 'arguments.targets'],
      [{ ...valid, targets: ['Linux!'] }, 'arguments.targets[0]'],
      [{ ...valid, confirm: false }, 'arguments.confirm'],
      [{ ...valid, targets: [1.5] }, 'arguments.targets[0]'],
    ];
    expect((await call('rel-ok', 'tools/call', { name: 'release', arguments: valid })).payload.result).toBeDefined();
    for (const [i, [args, path]] of invalid.entries()) {
      const { payload } = await call(`rel-${i}`, 'tools/call', { name: 'release', arguments: args });
      expect(payload.error, JSON.stringify(args)).toMatchObject({ code: JSONRPC_ERROR_CODES.invalidParams, message: expect.stringContaining(`${path}:`) });
    }
    expect(runs).toEqual([valid]);
  });

  it('answers an unknown tool with -32602 and an unknown method with -32601', async () => {
    expect((await call('call-3', 'tools/call', { name: 'nope', arguments: {} })).payload.error).toMatchObject({
      code: JSONRPC_ERROR_CODES.invalidParams,
      message: 'unknown tool: nope',
    });
    expect((await call('call-4', 'prompts/list')).payload.error).toMatchObject({ code: JSONRPC_ERROR_CODES.methodNotFound });
  });

  it('reports a tool that throws as an MCP result with isError, not as a JSON-RPC error', async () => {
    const response = await call('call-5', 'tools/call', { name: 'delete_everything', arguments: {} });
    expect(response.payload.error).toBeUndefined();
    expect(response.payload.result).toEqual({ content: [{ type: 'text', text: 'refusing to delete everything' }], isError: true });
  });

  it('turns a tool’s McpError into a JSON-RPC error with its code, message and data', async () => {
    const response = await call('call-6', 'tools/call', { name: 'read_secret', arguments: {} });
    expect(response.payload.result).toBeUndefined();
    expect(response.payload.error).toEqual({ code: -32010, message: 'outside the sandbox', data: { path: '../secret' } });
  });

  it('lists and reads resources, and answers an unknown URI with -32002', async () => {
    expect((await call('res-1', 'resources/list')).payload.result).toEqual({
      resources: [{ uri: 'memo://notes', name: 'Notes', mimeType: 'text/plain' }],
    });
    expect((await call('res-2', 'resources/read', { uri: 'memo://notes' })).payload.result).toEqual({
      contents: [{ uri: 'memo://notes', mimeType: 'text/plain', text: 'buy milk' }],
    });
    expect((await call('res-3', 'resources/read', { uri: 'memo://other' })).payload.error.code).toBe(JSONRPC_ERROR_CODES.resourceNotFound);
  });

  it('ignores requests addressed to someone else and sends nothing for notifications', async () => {
    caller.send({ id: 'not-mine', kind: 'mcp/request', to: ['other'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    caller.send({ id: 'notify', kind: 'mcp/request', to: ['calc'], payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const answered = await call('after', 'tools/list');
    expect(answered.payload.result).toBeDefined();
    await call('after-2', 'tools/list'); // one more round trip: anything calc sent for the first two is here by now
    expect(caller.received.filter((f) => f.kind === 'mcp/response')).toEqual([]);
  });
});
