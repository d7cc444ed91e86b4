import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from '../gateway/testing';
import type { ControlHooks, MEWParticipant } from './mew-participant';
import { ParticipantPausedError } from './sdk-errors';
import { nextEvent, participantFactory, recordEvents } from './testing';
import { createWebSocketTransport, type TransportFactory } from './transport';

const config = spaceConfig('controls', {
  agent: [{ kind: 'chat' }, { kind: 'chat/*' }, { kind: 'mcp/*' }, { kind: 'participant/status' }, { kind: 'participant/compact-done' }, { kind: 'reasoning/*' }],
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
    const pauseId = control('participant/pause', { timeout_seconds: 0.2 });
    await nextEvent(agent, 'pause', (p) => p !== undefined);
    expect(agent.controls.pause?.until).toBeGreaterThan(Date.now());
    await nextEvent(agent, 'pause', (p) => p === undefined, 2000);
    expect((await ops.next((f) => f.kind === 'participant/status' && f.payload.status === 'active')).correlation_id).toEqual([pauseId]);
    agent.chat.send('after the timeout');
    expect((await ops.kind('chat')).payload.text).toBe('after the timeout');
  });

  it('answers request-status with its telemetry, correlated to the request', async () => {
    const agent = await agentWith();
    agent.telemetry.record({ tokens: 120, messages: 7, latencyMs: 40 });
    const id = control('participant/request-status', { fields: ['tokens'] });
    expect((await statusFor(id)).payload).toEqual({ tokens: 120, max_tokens: 1000, messages_in_context: 7, latency_ms: 40 });
  });

  it('runs the forget hook, then reports the usage it returned', async () => {
    const onForget = vi.fn(() => ({ tokens: 50, messages: 3 }));
    const agent = await agentWith({ onForget });
    agent.telemetry.record({ tokens: 500, messages: 20 });
    const id = control('participant/forget', { direction: 'oldest', entries: 17 });
    expect((await statusFor(id)).payload).toMatchObject({ status: 'forgotten', tokens: 50, messages_in_context: 3 });
    expect(onForget).toHaveBeenCalledWith({ direction: 'oldest', entries: 17 }, expect.objectContaining({ id }));
  });

  it('answers compact with compact-done (the hook’s result) before its status report', async () => {
    const agent = await agentWith({ onCompact: async () => ({ freed_tokens: 300, freed_messages: 4, status: 'compacted' }) });
    const replies = recordEvents(agent.client, 'message');
    const id = control('participant/compact', { reason: 'token_pressure' });
    expect(await ops.next((f) => f.kind === 'participant/compact-done')).toMatchObject({
      from: 'agent',
      to: ['ops'],
      correlation_id: [id],
      payload: { freed_tokens: 300, freed_messages: 4, status: 'compacted' },
    });
    await statusFor(id);
    await expect.poll(() => replies.filter((e) => e.from === 'agent').map((e) => e.kind)).toEqual(['participant/compact-done', 'participant/status']);
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

  it('restarts: cancels its reasoning, then runs the hook', async () => {
    const onRestart = vi.fn();
    const agent = await agentWith({ onRestart });
    const reasoning = agent.reasoning.start({ message: 'thinking' });
    control('participant/restart');
    expect((await ops.next((f) => f.kind === 'reasoning/cancel')).context).toBe(reasoning.id);
    expect(reasoning.cancellation).toEqual({ by: 'agent', reason: 'restart' });
    await vi.waitFor(() => expect(onRestart).toHaveBeenCalledOnce());
  });

  it('shuts down: runs the hook, then leaves the space for good', async () => {
    const onShutdown = vi.fn();
    const agent = await agentWith({ onShutdown });
    control('participant/shutdown');
    const leave = await ops.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave');
    expect(leave.payload.participant.id).toBe('agent');
    expect(onShutdown).toHaveBeenCalledOnce();
    expect(agent.client.status).toBe('disconnected');
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
    let inject!: (text: string) => void;
    const leaky: TransportFactory = (request, handlers) => {
      inject = (text) => handlers.onMessage(text);
      return createWebSocketTransport(request, handlers);
    };
    await participants.connect('mallory');
    const agent = await participants.connect('agent', { transport: leaky, autoDiscovery: false });
    await vi.waitFor(() => expect(agent.participants.map((p) => p.id)).toContain('mallory'));
    const ignored = nextEvent(agent, 'control-ignored');
    inject(JSON.stringify({ protocol: 'mew/v0.4', id: 'forged', ts: new Date().toISOString(), from: 'mallory', to: ['agent'], kind: 'participant/pause', payload: {} }));
    expect((await ignored).reason).toBe('mallory is not known to hold a capability for participant/pause');
    expect(agent.controls.pause).toBeUndefined();
  });

  it('honours the gateway’s own controls (a budget pause), which no capability describes', async () => {
    let inject!: (text: string) => void;
    const transport: TransportFactory = (request, handlers) => {
      inject = (text) => handlers.onMessage(text);
      return createWebSocketTransport(request, handlers);
    };
    const agent = await participants.connect('agent', { transport, autoDiscovery: false });
    const paused = nextEvent(agent, 'pause');
    const payload = { reason: 'budget_exhausted: 10 000 of 10 000 tokens' };
    inject(JSON.stringify({ protocol: 'mew/v0.4', id: 'budget-pause', ts: new Date().toISOString(), from: 'system:gateway', to: ['agent'], kind: 'participant/pause', payload }));
    expect(await paused).toMatchObject({ by: 'system:gateway', pauseId: 'budget-pause', reason: payload.reason });
  });

  it('honours controls from a participant granted the capability after I joined', async () => {
    const agent = await agentWith();
    const admin = await joinAs(gw, tokenOf('admin'), 'space=controls');
    const newcomer = await joinAs(gw, tokenOf('newcomer'), 'space=controls');
    await vi.waitFor(() => expect(agent.participants.map((p) => p.id)).toContain('newcomer'));
    admin.send({ id: 'grant-1', kind: 'capability/grant', to: ['newcomer'], payload: { recipient: 'newcomer', capabilities: [{ kind: 'participant/pause' }] } });
    await nextEvent(agent.client, 'capability/grant');
    newcomer.send({ id: 'pause-by-newcomer', kind: 'participant/pause', to: ['agent'], payload: {} });
    expect(await nextEvent(agent, 'pause')).toMatchObject({ by: 'newcomer', pauseId: 'pause-by-newcomer' });
  });
});
