import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Kind } from '../protocol';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import type { Operation, ParticipantOperate } from './participant-namespaces';
import { GatewayRefusalError, ParticipantPausedError } from './sdk-errors';
import { nextEvent, participantFactory, recordEvents, rejectionOf } from './testing';

const config = spaceConfig('operate', {
  ops: [
    { kind: 'capability/grant' },
    { kind: 'capability/revoke' },
    { kind: 'space/invite' },
    { kind: 'space/kick' },
    { kind: 'participant/*' },
    { kind: 'reasoning/cancel' },
    { kind: 'chat' },
    { kind: 'mcp/request', payload: { method: 'tools/list' } },
  ],
  agent: [
    { kind: 'chat' },
    { kind: 'chat/*' },
    { kind: 'capability/grant-ack' },
    { kind: 'participant/status' },
    { kind: 'participant/compact-done' },
    { kind: 'reasoning/*' },
    { kind: 'mcp/response' },
  ],
  mallory: [{ kind: 'chat' }],
});

/** What each control sends, called through `operate`, and the envelope that must come of it (to `agent`). */
const CONTROLS: [string, (operate: ParticipantOperate) => Operation, { kind: Kind; payload: unknown }][] = [
  [
    'pause',
    (o) => o.pause('agent', { reason: 'maintenance', timeout_seconds: 30 }),
    { kind: 'participant/pause', payload: { reason: 'maintenance', timeout_seconds: 30 } },
  ],
  ['resume', (o) => o.resume('agent'), { kind: 'participant/resume', payload: {} }],
  ['requestStatus', (o) => o.requestStatus('agent', { fields: ['tokens'] }), { kind: 'participant/request-status', payload: { fields: ['tokens'] } }],
  ['forget', (o) => o.forget('agent', { direction: 'newest', entries: 3 }), { kind: 'participant/forget', payload: { direction: 'newest', entries: 3 } }],
  [
    'compact',
    (o) => o.compact('agent', { reason: 'operator_request', target_tokens: 500 }),
    { kind: 'participant/compact', payload: { reason: 'operator_request', target_tokens: 500 } },
  ],
  ['clear', (o) => o.clear('agent'), { kind: 'participant/clear', payload: {} }],
  ['restart', (o) => o.restart('agent'), { kind: 'participant/restart', payload: {} }],
  ['shutdown', (o) => o.shutdown('agent'), { kind: 'participant/shutdown', payload: {} }],
];

describe('MEWParticipant.operate: every operator envelope the control room sends', () => {
  let gw: TestGateway;
  let ops: MEWParticipant;
  let agent: MEWParticipant;
  const participants = participantFactory('operate', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    ops = await participants.connect('ops', { autoDiscovery: false });
    agent = await participants.connect('agent', { autoDiscovery: false });
    await vi.waitFor(() => expect(ops.participants.map((p) => p.id)).toContain('agent'));
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it.each(CONTROLS)('%s: sends its control to the target, the gateway accepts it and the target receives it', async (_name, call, expected) => {
    const received = nextEvent(agent.client, 'message', (e) => e.kind === expected.kind && e.from === 'ops');
    const { envelope, accepted } = call(ops.operate);
    expect(envelope).toMatchObject({ kind: expected.kind, to: ['agent'], payload: expected.payload });
    expect(await accepted).toMatchObject({ id: envelope.id, from: 'ops', kind: expected.kind, to: ['agent'], payload: expected.payload });
    expect((await received).id).toBe(envelope.id);
  });

  it('resumes correlated to the pause it lifts, and the target is paused and resumed', async () => {
    const pause = ops.operate.pause('agent', { reason: 'maintenance' });
    expect(await nextEvent(agent, 'pause', (p) => p !== undefined)).toMatchObject({ by: 'ops', pauseId: pause.envelope.id, reason: 'maintenance' });
    const resume = ops.operate.resume('agent', { pauseId: pause.envelope.id });
    expect(resume.envelope.correlation_id).toEqual([pause.envelope.id]);
    await resume.accepted;
    await nextEvent(agent, 'pause', (p) => p === undefined);
    expect(agent.controls.pause).toBeUndefined();
  });

  it('asks for status: the answer is correlated to the envelope it returns, like telemetry.request', async () => {
    agent.telemetry.record({ tokens: 120, messages: 7 });
    const status = nextEvent(ops.client, 'participant/status', (e) => e.from === 'agent');
    const { envelope } = ops.operate.requestStatus('agent');
    expect(envelope.payload).toEqual({});
    expect(await status).toMatchObject({ correlation_id: [envelope.id], payload: { tokens: 120, messages_in_context: 7 } });
    expect(ops.telemetry.request('agent')).toMatchObject({ kind: 'participant/request-status', to: ['agent'], payload: {} });
  });

  it('grants: accepted, acknowledged by the recipient, in force at once; revoking by grant id takes it back', async () => {
    const capabilities = [{ kind: 'mcp/request', payload: { method: 'tools/list' } }];
    const widened = nextEvent(agent, 'capabilities', (caps) => caps.some((c) => c.kind === 'mcp/request'));
    const grant = ops.operate.grant({ recipient: 'agent', capabilities, reason: 'discovery' });
    expect(grant.envelope).toMatchObject({ kind: 'capability/grant', to: ['agent'], payload: { recipient: 'agent', capabilities, reason: 'discovery' } });
    expect(await grant.accepted).toMatchObject({ id: grant.envelope.id, from: 'ops' });
    expect(await grant.ack).toMatchObject({
      kind: 'capability/grant-ack',
      from: 'agent',
      correlation_id: [grant.envelope.id],
      payload: { status: 'accepted' },
    });
    await widened;
    expect(agent.canSend('mcp/request', { method: 'tools/list' })).toBe(true);

    const narrowed = nextEvent(agent, 'capabilities', (caps) => !caps.some((c) => c.kind === 'mcp/request'));
    const revoke = ops.operate.revoke({ recipient: 'agent', grant_id: grant.envelope.id });
    expect(revoke.envelope).toMatchObject({ kind: 'capability/revoke', to: ['agent'], payload: { recipient: 'agent', grant_id: grant.envelope.id } });
    await revoke.accepted;
    await narrowed;
    expect(agent.canSend('mcp/request', { method: 'tools/list' })).toBe(false);
  });

  it('revokes by pattern', async () => {
    const grant = ops.operate.grant({ recipient: 'agent', capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/list' } }] });
    await grant.ack;
    const narrowed = nextEvent(agent, 'capabilities', (caps) => !caps.some((c) => c.kind === 'mcp/request'));
    await ops.operate.revoke({ recipient: 'agent', capabilities: [{ kind: 'mcp/*' }] }).accepted;
    await narrowed;
  });

  it('refuses a grant from a participant without capability/grant the same way as before: capability_violation, for the ack too', async () => {
    const mallory = await participants.connect('mallory', { autoDiscovery: false });
    const grants = recordEvents(agent.client, 'capability/grant');
    const { envelope, accepted, ack } = mallory.operate.grant({ recipient: 'mallory', capabilities: [{ kind: 'chat' }] });
    const error = await rejectionOf(accepted);
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error).toMatchObject({ code: 'capability_violation', payload: { attempted_kind: 'capability/grant' } });
    expect((error as GatewayRefusalError).envelopeId).not.toBe(envelope.id);
    expect(await rejectionOf(ack)).toMatchObject({ code: 'capability_violation', envelopeId: (error as GatewayRefusalError).envelopeId });
    // Nothing was routed: a chat sent after it arrives first.
    mallory.chat.send('after');
    await nextEvent(agent.client, 'chat', (e) => e.payload.text === 'after');
    expect(grants).toEqual([]);
  });

  it('refuses a grant of what the granter does not hold (grant_exceeds_own_capabilities)', async () => {
    const { accepted } = ops.operate.grant({ recipient: 'agent', capabilities: [{ kind: 'space/*' }] });
    expect(await rejectionOf(accepted)).toMatchObject({ code: 'grant_exceeds_own_capabilities' });
  });

  it('refuses a control naming nobody (unknown_participant)', async () => {
    expect(await rejectionOf(ops.operate.pause('nobody').accepted)).toMatchObject({ code: 'unknown_participant' });
  });

  it('invites: the gateway’s ack carries the minted token, for me alone', async () => {
    const seen = nextEvent(agent.client, 'space/invite');
    const { envelope, accepted, ack } = ops.operate.invite({ participant_id: 'guest', initial_capabilities: [{ kind: 'chat' }], reason: 'help' });
    expect(envelope).toMatchObject({ kind: 'space/invite', payload: { participant_id: 'guest', initial_capabilities: [{ kind: 'chat' }], reason: 'help' } });
    expect(envelope.to).toBeUndefined();
    await accepted;
    expect(await ack).toMatchObject({
      kind: 'space/invite-ack',
      from: 'system:gateway',
      to: ['ops'],
      correlation_id: [envelope.id],
      payload: { status: 'created', participant_id: 'guest', token: expect.any(String) },
    });
    expect((await seen).payload).not.toHaveProperty('token');
  });

  it('kicks: addressed to the participant it names, which is disconnected', async () => {
    const left = nextEvent(ops, 'participant-leave', (p) => p.id === 'agent');
    const { envelope, accepted } = ops.operate.kick({ participant_id: 'agent', reason: 'spam' });
    expect(envelope).toMatchObject({ kind: 'space/kick', to: ['agent'], payload: { participant_id: 'agent', reason: 'spam' } });
    await accepted;
    await left;
  });

  it('cancels another’s reasoning: context and correlation name its reasoning/start', async () => {
    const reasoning = agent.reasoning.start({ message: 'thinking' });
    await nextEvent(ops.client, 'reasoning/start', (e) => e.id === reasoning.id);
    const { envelope, accepted } = ops.operate.cancelReasoning('agent', reasoning.id, { reason: 'cancelled by human' });
    expect(envelope).toMatchObject({
      kind: 'reasoning/cancel',
      to: ['agent'],
      context: reasoning.id,
      correlation_id: [reasoning.id],
      payload: { reason: 'cancelled by human' },
    });
    await accepted;
    await vi.waitFor(() => expect(reasoning.cancellation).toEqual({ by: 'ops', reason: 'cancelled by human' }));
  });

  it('allows: asks the gateway’s matcher about the very envelope a call would send', () => {
    expect(ops.operate.allows('pause', 'agent')).toBe(true);
    expect(ops.operate.allows('forget', 'agent', { direction: 'oldest' })).toBe(true);
    expect(ops.operate.allows('kick', { participant_id: 'agent' })).toBe(true);
    expect(ops.operate.allows('grant', { recipient: 'agent', capabilities: [{ kind: 'chat' }] })).toBe(true);
    expect(ops.operate.allows('cancelReasoning', 'agent', 'r-1')).toBe(true);
    expect(agent.operate.allows('pause', 'ops')).toBe(false);
    expect(agent.operate.allows('grant', { recipient: 'ops', capabilities: [{ kind: 'chat' }] })).toBe(false);
    expect(agent.operate.allows('invite', { participant_id: 'x' })).toBe(false);
  });

  it('is refused at once while I am paused, like any send', async () => {
    const paused = nextEvent(agent, 'pause', (p) => p !== undefined);
    ops.operate.pause('agent');
    await paused;
    expect(() => agent.operate.requestStatus('ops')).toThrow(ParticipantPausedError);
  });
});
