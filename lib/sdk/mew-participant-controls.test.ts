import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from '../gateway/testing';
import type { ControlHooks, MEWParticipant } from './mew-participant';
import { ParticipantPausedError, RequestCancelledError } from './sdk-errors';
import { leakyTransport, nextEvent, participantFactory, recordEvents, rejectionOf } from './testing';

const config = spaceConfig('controls', {
  agent: [
    { kind: 'chat' },
    { kind: 'chat/*' },
    { kind: 'mcp/proposal' },
    { kind: 'mcp/withdraw' },
    { kind: 'mcp/response' },
    { kind: 'participant/status' },
    { kind: 'participant/compact-done' },
    { kind: 'reasoning/*' },
  ],
  // Controllable, but without chat/acknowledge: acknowledges a shutdown with a status.
  terse: [{ kind: 'participant/status' }],
  ops: [{ kind: 'participant/*' }, { kind: 'chat' }],
  admin: [{ kind: 'capability/grant' }, { kind: 'participant/*' }],
  newcomer: [{ kind: 'chat' }],
  mallory: [{ kind: 'chat' }],
});

describe('MEWParticipant participant controls', () => {
  let gw: TestGateway;
  let ops: TestClient;
  const participants = participantFactory('controls', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    ops = await joinAs(gw, tokenOf('ops'), 'space=controls');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  async function agentWith(hooks: ControlHooks = {}): Promise<MEWParticipant> {
    return participants.connect('agent', { hooks, autoDiscovery: false, telemetry: { maxTokens: 1000 } });
  }

  function control(kind: string, payload: Record<string, unknown> = {}, id = `${kind}-1`, to = ['agent']): string {
    ops.send({ id, kind, to, payload });
    return id;
  }

  /** The next participant/status answering `id`. */
  function statusFor(id: string): Promise<Frame> {
    return ops.next((f) => f.kind === 'participant/status' && f.correlation_id?.[0] === id);
  }

  it('pauses: non-exempt sends fail locally with a clear error, exempt ones go through, resume lifts it', async () => {
    const agent = await agentWith();
    const paused = nextEvent(agent, 'pause');
    const pauseId = control('participant/pause', { reason: 'maintenance' });
    expect(await paused).toMatchObject({ by: 'ops', pauseId, reason: 'maintenance' });
    expect((await statusFor(pauseId)).payload).toMatchObject({ status: 'paused', messages_in_context: 0 });

    expect(() => agent.chat.send('still here?')).toThrow(ParticipantPausedError);
    expect(() => agent.chat.send('still here?')).toThrow('paused by ops (maintenance): cannot send "chat" until resumed');
    await expect(agent.mcpRequest('ops', { method: 'tools/list' })).rejects.toBeInstanceOf(ParticipantPausedError);
    agent.telemetry.report({ status: 'waiting' }); // exempt: the gateway lets it through as well
    expect((await ops.next((f) => f.kind === 'participant/status' && f.payload.status === 'waiting')).from).toBe('agent');

    const resumeId = control('participant/resume');
    expect((await statusFor(resumeId)).payload.status).toBe('active');
    expect(agent.controls.pause).toBeUndefined();
    agent.chat.send('back');
    expect((await ops.kind('chat')).payload.text).toBe('back');
  });

  it('resumes by itself when the pause times out', async () => {
    const agent = await agentWith();
    const announced = recordEvents(agent.client, 'participant/resume');
    const pauseId = control('participant/pause', { timeout_seconds: 0.2 });
    await nextEvent(agent, 'pause', (p) => p !== undefined);
    expect(agent.controls.pause?.until).toBeGreaterThan(Date.now());
    await nextEvent(agent, 'pause', (p) => p === undefined, 2000);
    const active = await ops.next((f) => f.kind === 'participant/status' && f.payload.status === 'active');
    // Its own timer, or the gateway's resume announcing the lapse (correlated to the pause), whichever came first.
    expect([pauseId, ...announced.filter((r) => r.correlation_id?.includes(pauseId)).map((r) => r.id)]).toContain(active.correlation_id?.[0]);
    agent.chat.send('after the timeout');
    expect((await ops.kind('chat')).payload.text).toBe('after the timeout');
  });

  it('answers request-status with its telemetry, correlated to the request', async () => {
    const agent = await agentWith();
    agent.telemetry.record({ tokens: 120, messages: 7, latencyMs: 40, costUsd: 0.5 });
    const id = control('participant/request-status');
    expect((await statusFor(id)).payload).toEqual({ tokens: 120, max_tokens: 1000, messages_in_context: 7, latency_ms: 40, cost_usd: 0.5 });
  });

  it('answers request-status with only the fields asked for, and always messages_in_context', async () => {
    const agent = await agentWith();
    agent.telemetry.record({ tokens: 120, messages: 7, latencyMs: 40, costUsd: 0.5 });
    const tokens = control('participant/request-status', { fields: ['tokens'] }, 'fields-1');
    expect((await statusFor(tokens)).payload).toEqual({ tokens: 120, max_tokens: 1000, messages_in_context: 7 });
    const latency = control('participant/request-status', { fields: ['latency', 'cost'] }, 'fields-2');
    expect((await statusFor(latency)).payload).toEqual({ latency_ms: 40, cost_usd: 0.5, messages_in_context: 7 });
    const none = control('participant/request-status', { fields: ['unheard_of'] }, 'fields-3');
    expect((await statusFor(none)).payload).toEqual({ messages_in_context: 7 });
  });

  it('runs the forget hook, then reports the usage it returned', async () => {
    const onForget = vi.fn(() => ({ tokens: 50, messages: 3 }));
    const agent = await agentWith({ onForget });
    agent.telemetry.record({ tokens: 500, messages: 20 });
    const id = control('participant/forget', { direction: 'oldest', entries: 17 });
    expect((await statusFor(id)).payload).toMatchObject({ status: 'forgotten', tokens: 50, messages_in_context: 3 });
    expect(onForget).toHaveBeenCalledWith({ direction: 'oldest', entries: 17 }, expect.objectContaining({ id }));
  });

  it('answers compact with a compacting status, then compact-done (the hook’s result), then a compacted status', async () => {
    const agent = await agentWith({ onCompact: async () => ({ freed_tokens: 300, freed_messages: 4, status: 'compacted' }) });
    const replies = recordEvents(agent.client, 'message');
    const id = control('participant/compact', { reason: 'token_pressure' });
    expect(await ops.next((f) => f.kind === 'participant/compact-done')).toMatchObject({
      from: 'agent',
      to: ['ops'],
      correlation_id: [id],
      payload: { freed_tokens: 300, freed_messages: 4, status: 'compacted' },
    });
    await expect
      .poll(() => replies.filter((e) => e.from === 'agent').map((e) => `${e.kind} ${e.correlation_id} ${(e.payload as { status?: string }).status}`))
      .toEqual([`participant/status ${id} compacting`, `participant/compact-done ${id} compacted`, `participant/status ${id} compacted`]);
  });

  it('answers compact with skipped when there is no compaction hook', async () => {
    await agentWith();
    control('participant/compact');
    expect((await ops.next((f) => f.kind === 'participant/compact-done')).payload).toEqual({ skipped: true, reason: 'nothing to compact' });
  });

  it('clears: reports an empty context', async () => {
    const onClear = vi.fn();
    const agent = await agentWith({ onClear });
    agent.telemetry.record({ tokens: 800, messages: 30 });
    const id = control('participant/clear');
    expect((await statusFor(id)).payload).toMatchObject({ status: 'cleared', tokens: 0, messages_in_context: 0 });
    expect(onClear).toHaveBeenCalledOnce();
  });

  it('restarts: cancels its reasoning, withdraws its proposals, ends its requests, says restarting, then runs the hook', async () => {
    const onRestart = vi.fn();
    const agent = await agentWith({ onRestart });
    const reasoning = agent.reasoning.start({ message: 'thinking' });
    let proposalId = '';
    const pending = rejectionOf(agent.mcpRequest('ops', { method: 'tools/list' }, 60_000, { onSent: (sent) => (proposalId = sent.id) }));
    await ops.next((f) => f.kind === 'mcp/proposal');
    const id = control('participant/restart');
    expect((await ops.next((f) => f.kind === 'reasoning/cancel')).context).toBe(reasoning.id);
    expect(reasoning.cancellation).toEqual({ by: 'agent', reason: 'restart' });
    expect(await ops.next((f) => f.kind === 'mcp/withdraw')).toMatchObject({ from: 'agent', correlation_id: [proposalId], payload: { reason: 'restarting' } });
    const error = await pending;
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe(`proposal ${proposalId} cancelled: restarting`);
    expect((await statusFor(id)).payload.status).toBe('restarting');
    await vi.waitFor(() => expect(onRestart).toHaveBeenCalledOnce());
  });

  it('shuts down: acknowledges it (correlated), runs the hook, then leaves the space for good', async () => {
    const onShutdown = vi.fn();
    const agent = await agentWith({ onShutdown });
    const id = control('participant/shutdown');
    expect(await ops.next((f) => f.kind === 'chat/acknowledge')).toMatchObject({
      from: 'agent',
      to: ['ops'],
      correlation_id: [id],
      payload: { status: 'shutting_down' },
    });
    const leave = await ops.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave');
    expect(leave.payload.participant.id).toBe('agent');
    expect(onShutdown).toHaveBeenCalledOnce();
    expect(agent.client.status).toBe('disconnected');
  });

  it('acknowledges a shutdown with a status when it may not send chat/acknowledge', async () => {
    await participants.connect('terse', { telemetry: { maxTokens: 1000 } });
    const id = control('participant/shutdown', {}, 'shutdown-terse', ['terse']);
    expect((await statusFor(id)).payload).toMatchObject({ status: 'shutting_down', messages_in_context: 0 });
  });

  it('ignores controls addressed to someone else', async () => {
    const agent = await agentWith();
    await participants.connect('mallory');
    control('participant/pause', {}, 'pause-mallory', ['mallory']);
    await nextEvent(agent.client, 'participant/pause');
    expect(agent.controls.pause).toBeUndefined();
  });

  it('ignores a control from a sender whose capabilities do not allow it, even if the gateway delivered it', async () => {
    // A gateway that failed to enforce: the forged pause is slipped into the agent's real connection.
    const { transport, inject } = leakyTransport();
    await participants.connect('mallory');
    const agent = await participants.connect('agent', { transport, autoDiscovery: false });
    await vi.waitFor(() => expect(agent.participants.map((p) => p.id)).toContain('mallory'));
    const ignored = nextEvent(agent, 'control-ignored');
    inject(
      JSON.stringify({
        protocol: 'mew/v0.4',
        id: 'forged',
        ts: new Date().toISOString(),
        from: 'mallory',
        to: ['agent'],
        kind: 'participant/pause',
        payload: {},
      }),
    );
    expect((await ignored).reason).toBe('mallory is not known to hold a capability for participant/pause');
    expect(agent.controls.pause).toBeUndefined();
  });

  it('honours the gateway’s own controls (a budget pause), which no capability describes', async () => {
    const { transport, inject } = leakyTransport();
    const agent = await participants.connect('agent', { transport, autoDiscovery: false });
    const paused = nextEvent(agent, 'pause');
    const payload = { reason: 'budget_exhausted: 10 000 of 10 000 tokens' };
    inject(
      JSON.stringify({
        protocol: 'mew/v0.4',
        id: 'budget-pause',
        ts: new Date().toISOString(),
        from: 'system:gateway',
        to: ['agent'],
        kind: 'participant/pause',
        payload,
      }),
    );
    expect(await paused).toMatchObject({ by: 'system:gateway', pauseId: 'budget-pause', reason: payload.reason });
  });

  it('honours controls from a participant granted the capability after I joined', async () => {
    const agent = await agentWith();
    const admin = await joinAs(gw, tokenOf('admin'), 'space=controls');
    const newcomer = await joinAs(gw, tokenOf('newcomer'), 'space=controls');
    await vi.waitFor(() => expect(agent.participants.map((p) => p.id)).toContain('newcomer'));
    admin.send({
      id: 'grant-1',
      kind: 'capability/grant',
      to: ['newcomer'],
      payload: { recipient: 'newcomer', capabilities: [{ kind: 'participant/pause' }] },
    });
    await nextEvent(agent.client, 'capability/grant');
    newcomer.send({ id: 'pause-by-newcomer', kind: 'participant/pause', to: ['agent'], payload: {} });
    expect(await nextEvent(agent, 'pause')).toMatchObject({ by: 'newcomer', pauseId: 'pause-by-newcomer' });
  });
});
