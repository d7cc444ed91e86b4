import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { nextEvent, participantFactory } from './testing';

const config = spaceConfig('reasoning', {
  agent: [{ kind: 'reasoning/*' }, { kind: 'chat' }],
  supervisor: [{ kind: 'reasoning/cancel' }, { kind: 'chat' }],
});

describe('MEWParticipant reasoning sequences', () => {
  let gw: TestGateway;
  let agent: MEWParticipant;
  let supervisor: TestClient;
  const participants = participantFactory('reasoning', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    agent = await participants.connect('agent');
    supervisor = await joinAs(gw, tokenOf('supervisor'), 'space=reasoning');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('sends start (correlated), thoughts and a conclusion in the start’s context, then nothing more', async () => {
    const reasoning = agent.reasoning.start({ message: 'Analysing', correlatedTo: 'req-1' });
    expect(reasoning.thought('first')).toBe(true);
    expect(reasoning.conclude('done')).toBe(true);
    expect(reasoning.thought('too late')).toBe(false);
    expect(reasoning.ended).toBe(true);
    const start = await supervisor.kind('reasoning/start');
    expect(start).toMatchObject({ id: reasoning.id, correlation_id: ['req-1'], payload: { message: 'Analysing' } });
    expect(await supervisor.kind('reasoning/thought')).toMatchObject({ context: reasoning.id, payload: { message: 'first' } });
    expect(await supervisor.kind('reasoning/conclusion')).toMatchObject({ context: reasoning.id, payload: { message: 'done' } });
    agent.chat.send('marker');
    await supervisor.kind('chat');
    expect(supervisor.received.some((f) => f.kind === 'reasoning/thought')).toBe(false);
  });

  it('stops when another participant cancels it: onCancel fires and further thoughts are no-ops', async () => {
    const reasoning = agent.reasoning.start();
    const onCancel = vi.fn();
    reasoning.onCancel(onCancel);
    const cancelled = nextEvent(agent.client, 'reasoning/cancel');
    supervisor.send({ kind: 'reasoning/cancel', context: reasoning.id, payload: { reason: 'superseded' } });
    await cancelled;
    expect(reasoning.cancelled).toBe(true);
    expect(onCancel).toHaveBeenCalledExactlyOnceWith({ by: 'supervisor', reason: 'superseded' });
    expect(reasoning.thought('ignored')).toBe(false);
    expect(reasoning.cancel('again')).toBe(false);
  });

  it('ignores a cancel for another context', async () => {
    const reasoning = agent.reasoning.start();
    const seen = nextEvent(agent.client, 'reasoning/cancel');
    supervisor.send({ kind: 'reasoning/cancel', context: 'some-other-start', payload: {} });
    await seen;
    expect(reasoning.cancelled).toBe(false);
    expect(reasoning.thought('still going')).toBe(true);
  });

  it('cancels itself with reasoning/cancel in its context', async () => {
    const reasoning = agent.reasoning.start();
    expect(reasoning.cancel('timeout')).toBe(true);
    expect(await supervisor.kind('reasoning/cancel')).toMatchObject({ from: 'agent', context: reasoning.id, payload: { reason: 'timeout' } });
    expect(reasoning.cancellation).toEqual({ by: 'agent', reason: 'timeout' });
  });
});
