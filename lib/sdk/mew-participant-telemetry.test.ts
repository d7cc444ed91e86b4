import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import { MEWParticipant } from './mew-participant';
import { nextEvent, participantFactory } from './testing';

const config = spaceConfig('telemetry', {
  agent: [{ kind: 'participant/status' }, { kind: 'chat' }],
  watcher: [{ kind: 'chat' }],
  other: [{ kind: 'chat' }],
});

describe('MEWParticipant telemetry', () => {
  let gw: TestGateway;
  let watcher: TestClient;
  const participants = participantFactory('telemetry', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    watcher = await joinAs(gw, tokenOf('watcher'), 'space=telemetry');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('reports proactively once at the soft limit and re-arms only below the hysteresis ratio', async () => {
    const agent = await participants.connect('agent', { telemetry: { maxTokens: 1000 } });
    for (const tokens of [850, 900, 950, 850, 910, 700, 920]) agent.telemetry.record({ tokens, messages: tokens / 10 });
    agent.chat.send('marker'); // everything the agent sent before it has arrived once the marker has
    await watcher.next((f) => f.kind === 'chat' && f.payload.text === 'marker');
    const reports = watcher.received.filter((f) => f.kind === 'participant/status');
    expect(reports.map((f) => f.payload)).toEqual([
      { tokens: 900, max_tokens: 1000, messages_in_context: 90, status: 'near_limit' },
      { tokens: 920, max_tokens: 1000, messages_in_context: 92, status: 'near_limit' },
    ]);
  });

  it('honours a custom soft limit and re-arm ratio', async () => {
    const agent = await participants.connect('agent', { telemetry: { maxTokens: 100, softLimitRatio: 0.5, rearmRatio: 0.4 } });
    for (const tokens of [49, 50, 45, 55, 39, 60]) agent.telemetry.record({ tokens });
    agent.chat.send('marker');
    await watcher.next((f) => f.kind === 'chat' && f.payload.text === 'marker');
    expect(watcher.received.filter((f) => f.kind === 'participant/status').map((f) => f.payload.tokens)).toEqual([50, 60]);
  });

  it('builds status payloads that always carry messages_in_context', () => {
    const agent = new MEWParticipant({ gateway: 'ws://127.0.0.1:1/ws', space: 'telemetry', token: 't' });
    expect(agent.telemetry.statusPayload()).toEqual({ messages_in_context: 0, tokens: 0 });
    agent.telemetry.record({ tokens: 12_345, maxTokens: 20_000, messages: 128, latencyMs: 350 });
    expect(agent.telemetry.statusPayload('thinking')).toEqual({
      tokens: 12_345,
      max_tokens: 20_000,
      messages_in_context: 128,
      latency_ms: 350,
      status: 'thinking',
    });
    agent.telemetry.record({ tokens: 100 }); // omitted fields keep their values
    expect(agent.telemetry.statusPayload()).toMatchObject({ tokens: 100, messages_in_context: 128 });
  });

  it('counts the chats it receives, to it or to everyone, in messages_in_context (not others’ nor its own)', async () => {
    const agent = await participants.connect('agent');
    await participants.connect('other');
    agent.telemetry.record({ messages: 3 });
    watcher.send({ kind: 'chat', payload: { text: 'to everyone' } });
    watcher.send({ kind: 'chat', to: ['agent'], payload: { text: 'to the agent' } });
    watcher.send({ kind: 'chat', to: ['other'], payload: { text: 'to someone else' } });
    agent.chat.send('my own');
    await nextEvent(agent.client, 'chat', (e) => e.payload.text === 'my own');
    expect(agent.telemetry.statusPayload().messages_in_context).toBe(5);
  });

  it('reportStatus broadcasts the payload, correlated when asked', async () => {
    const agent = await participants.connect('agent', { telemetry: { maxTokens: 500 } });
    agent.telemetry.record({ tokens: 10, messages: 2 });
    const sent = agent.telemetry.report({ status: 'idle', correlationId: ['why'] });
    expect(await watcher.kind('participant/status')).toMatchObject({
      id: sent.id,
      from: 'agent',
      correlation_id: ['why'],
      payload: { tokens: 10, max_tokens: 500, messages_in_context: 2, status: 'idle' },
    });
  });
});
