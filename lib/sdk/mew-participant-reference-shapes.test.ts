import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import {
  REF_CHAT_ACK,
  REF_CONCLUSION,
  REF_REASONING_START,
  REF_THOUGHT_RESPOND,
  REF_THOUGHT_TOOL,
  REF_TOOLS_CALL,
  REF_TOOLS_LIST,
} from '../protocol/reference-shapes.fixture';
import { MEWAgent } from './agent';
import type { MEWParticipant } from './mew-participant';
import { participantFactory, TEST_BACKOFF } from './testing';

// The reference implementation's agent (here `mew`, a raw client sending its shapes) in a space of ours: it discovers
// and calls tools with requests that carry no JSON-RPC id, reasons in its own payloads and acknowledges chats with
// `processing`. Our participants answer it, and the control room's model shows what it says.
const SPACE = 'interop';
const config = spaceConfig(SPACE, {
  mew: [{ kind: 'chat' }, { kind: 'chat/*' }, { kind: 'reasoning/*' }, { kind: 'mcp/request' }, { kind: 'mcp/proposal' }, { kind: 'participant/status' }],
  calc: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  agent: [{ kind: 'mcp/response' }, { kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/list' } }],
  human: [{ kind: '*' }],
});

describe('the reference implementation’s agent in a space of ours', () => {
  let gw: TestGateway;
  let mew: TestClient;
  let calc: MEWParticipant;
  const participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
  const agents: MEWAgent[] = [];

  beforeEach(async () => {
    gw = await startTestGateway(config);
    calc = await participants.connect('calc');
    calc.tools.register({
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: ({ a, b }) => Number(a) + Number(b),
    });
    mew = await joinAs(gw, tokenOf('mew'), `space=${SPACE}`);
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) agent.disconnect();
    participants.disconnectAll();
    mew.close();
    await gw.close();
  });

  const responseTo = (id: string) => mew.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === id);

  it('is answered by MEWParticipant when it lists tools with no JSON-RPC id: the response names its envelope, and carries no id', async () => {
    mew.send(REF_TOOLS_LIST);
    const response = await responseTo(REF_TOOLS_LIST.id);
    expect(response).toMatchObject({ from: 'calc', to: ['mew'], correlation_id: [REF_TOOLS_LIST.id] });
    expect(response.payload).toEqual({
      jsonrpc: '2.0',
      result: { tools: [expect.objectContaining({ name: 'add', description: 'Adds two numbers' })] },
    });
  });

  it('is answered when it calls a tool with no JSON-RPC id', async () => {
    mew.send(REF_TOOLS_CALL);
    expect((await responseTo(REF_TOOLS_CALL.id)).payload).toEqual({ jsonrpc: '2.0', result: { content: [{ type: 'text', text: '5' }] } });
  });

  it('gets no answer to a notification (notifications/*, no id), with or without jsonrpc', async () => {
    mew.send({ id: 'ref-notify-1', kind: 'mcp/request', to: ['calc'], payload: { method: 'notifications/initialized' } });
    mew.send({ id: 'ref-notify-2', kind: 'mcp/request', to: ['calc'], payload: { jsonrpc: '2.0', method: 'notifications/cancelled' } });
    mew.send({ ...REF_TOOLS_LIST, id: 'after-notifications' });
    await responseTo('after-notifications'); // calc answers in order: anything it sent for the notifications is here
    expect(mew.received.filter((f) => f.kind === 'mcp/response' || f.kind === 'system/error')).toEqual([]);
  });

  it('is answered by MEWAgent serving a tool of its own', async () => {
    const agent = new MEWAgent({
      gateway: gw.wsUrl(),
      space: SPACE,
      token: tokenOf('agent'),
      backoff: TEST_BACKOFF,
      model: 'unused',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    agents.push(agent);
    agent.tools.register({ name: 'set_model', description: 'Switches the model', execute: ({ model }) => `now ${String(model)}` });
    await agent.connect();
    mew.send({ ...REF_TOOLS_LIST, id: 'ref-list-agent', to: ['agent'] });
    expect((await responseTo('ref-list-agent')).payload.result.tools).toEqual([expect.objectContaining({ name: 'set_model' })]);
    mew.send({
      ...REF_TOOLS_CALL,
      id: 'ref-call-agent',
      to: ['agent'],
      payload: { method: 'tools/call', params: { name: 'set_model', arguments: { model: 'x' } } },
    });
    expect((await responseTo('ref-call-agent')).payload.result).toEqual({ content: [{ type: 'text', text: 'now x' }] });
  });

  it('has its reasoning and its processing acknowledgement accepted, and the control room’s model shows them as they are', async () => {
    const human = await participants.connect('human', { spaceModel: { screen: true } });
    const chat = human.chat.send('list the notes', 'mew');
    mew.send({ ...REF_CHAT_ACK, correlation_id: [chat.id] });
    for (const envelope of [REF_REASONING_START, REF_THOUGHT_TOOL, REF_THOUGHT_RESPOND, REF_CONCLUSION]) mew.send(envelope);
    const conclusion = await mew.next((f) => f.id === REF_CONCLUSION.id);
    expect(conclusion.kind).toBe('reasoning/conclusion');
    expect(mew.received.filter((f) => f.kind === 'system/error')).toEqual([]);

    await expect.poll(() => human.spaceModel.state.reasoning.byId.get(REF_REASONING_START.id)?.state).toBe('concluded');
    const thread = human.spaceModel.state.reasoning.byId.get(REF_REASONING_START.id)!;
    expect(thread.message).toBe('list the notes');
    expect(thread.thoughts.map((t) => [t.message, t.action?.action])).toEqual([
      ['I should see which notes exist before answering.', 'tool'],
      ['Two notes exist; I can answer.', 'respond'],
    ]);
    expect(human.spaceModel.state.chat.receipts.get(chat.id)?.acks).toEqual([expect.objectContaining({ by: 'mew', status: 'processing' })]);
  });
});
