import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const config = spaceConfig('ctl', {
  boss: [{ kind: 'participant/*' }, { kind: 'chat' }],
  agent: [
    { kind: 'chat' },
    { kind: 'chat/acknowledge' },
    { kind: 'participant/status' },
    { kind: 'participant/compact-done' },
    { kind: 'mcp/response' },
    { kind: 'participant/resume' },
  ],
});

describe('participant controls enforced by the gateway', () => {
  let gw: TestGateway;
  let boss: TestClient;
  let agent: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    boss = await joinAs(gw, tokenOf('boss'), 'space=ctl');
    agent = await joinAs(gw, tokenOf('agent'), 'space=ctl');
  });
  afterEach(() => {
    vi.useRealTimers();
    return gw.close();
  });

  it('pauses a participant: it still receives the pause, its new work is refused, its replies pass, resume restores it', async () => {
    boss.send({ id: 'p1', kind: 'participant/pause', to: ['agent'], payload: { reason: 'review' } });
    expect((await agent.kind('participant/pause')).id).toBe('p1');
    agent.send({ id: 'work', kind: 'chat', payload: { text: 'more work' } });
    expect(await agent.kind('system/error')).toMatchObject({ correlation_id: ['work'], payload: { error: 'participant_paused', paused_by: 'boss' } });
    agent.send({ kind: 'participant/status', payload: { messages_in_context: 3 } });
    expect((await boss.kind('participant/status')).from).toBe('agent');
    agent.send({ kind: 'participant/resume', to: ['agent'], payload: {} }); // a paused participant cannot lift its own pause
    expect((await agent.kind('system/error')).payload.error).toBe('participant_paused');
    boss.send({ kind: 'participant/resume', to: ['agent'], correlation_id: ['p1'], payload: {} });
    await agent.kind('participant/resume');
    agent.send({ kind: 'chat', payload: { text: 'back to work' } });
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'agent')).payload.text).toBe('back to work');
  });

  it('lifts a pause when its timeout lapses', async () => {
    boss.send({ kind: 'participant/pause', to: ['agent'], payload: { timeout_seconds: 0.2 } });
    await agent.kind('participant/pause');
    agent.send({ kind: 'chat', payload: { text: 'early' } });
    expect((await agent.kind('system/error')).payload.error).toBe('participant_paused');
    // The gateway reads the clock when the next envelope arrives: move the clock, not the test, past the timeout.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 250);
    agent.send({ kind: 'chat', payload: { text: 'later' } });
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'agent')).payload.text).toBe('later');
  });

  it('announces a pause that times out with a participant/resume from the gateway, seen by everyone', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'], shouldAdvanceTime: true });
    boss.send({ id: 'timed', kind: 'participant/pause', to: ['agent'], payload: { timeout_seconds: 60 } });
    await agent.kind('participant/pause');
    vi.advanceTimersByTime(60_000);
    const resume = await boss.kind('participant/resume');
    expect(resume).toMatchObject({ from: 'system:gateway', to: ['agent'], correlation_id: ['timed'], payload: { reason: 'timeout' } });
    expect((await agent.kind('participant/resume')).id).toBe(resume.id);
    expect(gw.audit.query({ space: 'ctl', type: 'PARTICIPANT_RESUMED' })).toMatchObject([
      { actor: 'system:gateway', subject: 'agent', details: { reason: 'timeout' } },
    ]);
    agent.send({ kind: 'chat', payload: { text: 'resumed' } });
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'agent')).payload.text).toBe('resumed');
  });

  it('keeps a pause across the target’s reconnect', async () => {
    boss.send({ kind: 'participant/pause', to: ['agent'], payload: {} });
    await agent.kind('participant/pause');
    agent.close();
    await agent.closed;
    const again = await joinAs(gw, tokenOf('agent'), 'space=ctl');
    again.send({ kind: 'chat', payload: { text: 'escape?' } });
    expect((await again.kind('system/error')).payload.error).toBe('participant_paused');
  });

  it('shuts a participant down until it rejoins', async () => {
    boss.send({ kind: 'participant/shutdown', to: ['agent'] });
    await agent.kind('participant/shutdown');
    agent.send({ kind: 'chat', payload: { text: 'still here' } });
    expect((await agent.kind('system/error')).payload.error).toBe('participant_shutdown');
    agent.send({ kind: 'chat/acknowledge', correlation_id: ['x'], payload: { status: 'received' } });
    await boss.kind('chat/acknowledge');
    agent.close();
    await agent.closed;
    const again = await joinAs(gw, tokenOf('agent'), 'space=ctl');
    again.send({ kind: 'chat', payload: { text: 'fresh start' } });
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'agent')).payload.text).toBe('fresh start');
  });

  it('validates and routes the other controls, refusing unknown or missing targets', async () => {
    boss.send({ kind: 'participant/compact', to: ['agent'], payload: { target_tokens: 1000 } });
    expect((await agent.kind('participant/compact')).payload.target_tokens).toBe(1000);
    boss.send({ kind: 'participant/forget', to: ['agent'], payload: { direction: 'sideways' } });
    expect((await boss.kind('system/error')).payload.error).toBe('invalid_envelope');
    boss.send({ kind: 'participant/clear', to: ['ghost'] });
    expect((await boss.kind('system/error')).payload.error).toBe('unknown_participant');
    boss.send({ kind: 'participant/restart' });
    expect((await boss.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope', message: expect.stringMatching(/must name its target/) });
  });
});
