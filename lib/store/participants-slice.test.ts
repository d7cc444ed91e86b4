import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyEnvelope, applyEnvelopes, applyTick } from '../sdk/model/apply-envelope';
import { participantList } from '../sdk/model/space-selectors';
import { createSpaceState, type SpaceState } from '../sdk/model/space-state';
import { createSpaceStore } from './space-store';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { env, status, T0, welcome } from '../sdk/model/testing';

const NOW = T0 + 1_000;

function run(envelopes: StoreEnvelope[]): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human' }, T0), envelopes, NOW);
}

function presence(id: string, event: 'join' | 'leave', at: number): StoreEnvelope {
  return env({
    id: `presence-${id}-${event}-${at}`,
    at,
    from: 'system:gateway',
    kind: 'system/presence',
    payload: { event, participant: { id, capabilities: event === 'join' ? [{ kind: 'mcp/proposal' }, { kind: 'chat' }] : undefined } },
  });
}

describe('participants', () => {
  it('learns me and the others from my welcome, then presence joins and leaves (left ones are kept)', () => {
    let s = run([welcome('human', ['agent-1', 'agent-2'])]);
    expect(s.connection).toMatchObject({ me: 'human', status: 'ready', capabilities: [{ kind: 'mcp/*' }, { kind: 'chat' }] });
    expect(participantList(s).map((p) => [p.id, p.online])).toEqual([
      ['agent-1', true],
      ['agent-2', true],
      ['human', true],
    ]);
    s = applyEnvelopes(s, [presence('new-agent', 'join', 100), presence('agent-1', 'leave', 200)], NOW);
    expect(s.participants.byId.get('new-agent')!).toMatchObject({
      online: true,
      joinedAt: T0 + 100,
      capabilities: [{ kind: 'mcp/proposal' }, { kind: 'chat' }],
    });
    expect(s.participants.byId.get('agent-1')!).toMatchObject({ online: false, leftAt: T0 + 200, lastSeen: T0 + 200 });
    expect(participantList(s).map((p) => p.id)).toEqual(['agent-2', 'human', 'new-agent', 'agent-1']);
  });

  it('keeps each participant’s effective capabilities by the gateway’s rules: report, then grants and revocations since', () => {
    const grant = (id: string, capabilities: unknown[], at: number) =>
      env({ id, at, from: 'human', to: ['agent-1'], kind: 'capability/grant', payload: { recipient: 'agent-1', capabilities } });
    const revoke = (id: string, payload: Record<string, unknown>, at: number) =>
      env({ id, at, from: 'human', to: ['agent-1'], kind: 'capability/revoke', payload: { recipient: 'agent-1', ...payload } });
    const effective = (s: SpaceState) => s.participants.byId.get('agent-1')!.effective.all;
    let s = run([
      welcome('human', ['agent-1']),
      grant('g-1', [{ kind: 'reasoning/*' }], 10),
      grant('g-2', [{ kind: 'mcp/request' }, { kind: 'stream/request' }], 20),
    ]);
    expect(effective(s)).toEqual([{ kind: 'mcp/proposal' }, { kind: 'chat' }, { kind: 'reasoning/*' }, { kind: 'mcp/request' }, { kind: 'stream/request' }]);
    s = applyEnvelopes(s, [revoke('r-1', { grant_id: 'g-1' }, 30), revoke('r-2', { capabilities: [{ kind: 'mcp/*' }] }, 40)], NOW);
    expect(effective(s)).toEqual([{ kind: 'chat' }, { kind: 'stream/request' }]); // mcp/* covered a reported and a granted one
    s = applyEnvelopes(s, [presence('agent-1', 'join', 50)], NOW);
    expect(effective(s)).toEqual([{ kind: 'mcp/proposal' }, { kind: 'chat' }]); // a new report is the gateway's word again
  });

  it('does not let presence replayed from history (older than the welcome) roll participants back', () => {
    // After a reload the fresh welcome arrives first, then the catch-up history with older presence.
    const s = run([welcome('human', ['agent-1'], 500), presence('agent-1', 'join', 100), presence('agent-1', 'leave', 50)]);
    expect(s.participants.byId.get('agent-1')!).toMatchObject({ online: true, lastSeen: T0 + 500, capabilities: [{ kind: 'mcp/proposal' }, { kind: 'chat' }] });
    expect(s.participants.byId.get('agent-1')!.joinedAt).toBeUndefined();
  });

  it('replaces my capabilities with a later welcome and marks those missing from it as gone', () => {
    let s = run([welcome('human', ['agent-1', 'agent-2'], 0)]);
    s = applyEnvelope(
      s,
      {
        ...welcome('human', ['agent-2'], 5_000),
        payload: { you: { id: 'human', capabilities: [{ kind: 'chat' }] }, participants: [{ id: 'agent-2' }] },
      } as StoreEnvelope,
      NOW,
    );
    expect(s.connection.capabilities).toEqual([{ kind: 'chat' }]);
    expect(s.participants.byId.get('agent-1')!.online).toBe(false);
    // A replayed older welcome does not bring the old capabilities back.
    s = applyEnvelope(s, { ...welcome('human', ['agent-1'], 1_000), id: 'old-welcome' }, NOW);
    expect(s.connection.capabilities).toEqual([{ kind: 'chat' }]);
    expect(s.participants.byId.get('agent-1')!.online).toBe(false);
  });

  it('ignores a welcome addressed to someone else', () => {
    const s = run([welcome('someone-else', ['x'])]);
    expect(s.connection.capabilities).toEqual([]);
    expect(s.participants.byId.size).toBe(0);
  });

  it('pauses with a timeout (spec §3.9.1) and lifts it at tick once ts + timeout_seconds has passed', () => {
    let s = run([
      welcome('human', ['agent-1']),
      env({ id: 'pause-1', at: 1_000, from: 'human', to: ['agent-1'], kind: 'participant/pause', payload: { reason: 'rate_limit', timeout_seconds: 60 } }),
    ]);
    expect(s.participants.byId.get('agent-1')!.paused).toEqual({
      controlId: 'pause-1',
      by: 'human',
      since: T0 + 1_000,
      until: T0 + 61_000,
      reason: 'rate_limit',
    });
    s = applyTick(s, T0 + 60_999);
    expect(s.participants.byId.get('agent-1')!.paused).toBeDefined();
    s = applyTick(s, T0 + 61_000);
    expect(s.participants.byId.get('agent-1')!.paused).toBeUndefined();
  });

  it('clears a pause on resume (spec §3.9.2)', () => {
    const s = run([
      env({ id: 'pause-1', from: 'orchestrator', to: ['agent-1'], kind: 'participant/pause', payload: {} }),
      env({ id: 'resume-1', at: 10, from: 'orchestrator', to: ['agent-1'], kind: 'participant/resume', correlation_id: ['pause-1'], payload: {} }),
    ]);
    expect(s.participants.byId.get('agent-1')!.paused).toBeUndefined();
    expect(s.participants.byId.get('agent-1')!.lastControl?.kind).toBe('participant/resume');
  });

  it('keeps a shutdown until the participant rejoins', () => {
    let s = run([welcome('human', ['agent-1']), env({ id: 'shutdown-1', at: 10, from: 'human', to: ['agent-1'], kind: 'participant/shutdown' })]);
    expect(s.participants.byId.get('agent-1')!.shutdown).toEqual({ controlId: 'shutdown-1', by: 'human', at: T0 + 10 });
    s = applyEnvelopes(s, [presence('agent-1', 'leave', 20)], NOW);
    expect(s.participants.byId.get('agent-1')!.shutdown).toBeDefined();
    s = applyEnvelopes(s, [presence('agent-1', 'join', 30)], NOW);
    expect(s.participants.byId.get('agent-1')!.shutdown).toBeUndefined();
  });

  it('correlates control replies: compact → interim status → compact-done (spec §3.9.6–3.9.7)', () => {
    let s = run([
      env({ id: 'compact-1', from: 'human', to: ['agent-1'], kind: 'participant/compact', payload: { reason: 'token_pressure', target_tokens: 16000 } }),
    ]);
    s = applyEnvelope(s, status('st-1', 'agent-1', { status: 'compacting' }, 5), NOW);
    // An uncorrelated status is not a reply.
    expect(s.participants.byId.get('agent-1')!.lastControl?.replies).toEqual([]);
    s = applyEnvelope(s, { ...status('st-2', 'agent-1', { status: 'compacting' }, 6), correlation_id: ['compact-1'] }, NOW);
    expect(s.participants.byId.get('agent-1')!.lastControl).toMatchObject({ completed: false, replies: [{ id: 'st-2', kind: 'participant/status' }] });
    s = applyEnvelope(
      s,
      env({
        id: 'compact-done-1',
        at: 10,
        from: 'agent-1',
        to: ['human'],
        kind: 'participant/compact-done',
        correlation_id: ['compact-1'],
        payload: { freed_tokens: 2048, freed_messages: 12, status: 'compacted' },
      }),
      NOW,
    );
    expect(s.participants.byId.get('agent-1')!.lastControl).toMatchObject({ id: 'compact-1', completed: true, completedAt: T0 + 10 });
    expect(s.participants.byId.get('agent-1')!.lastControl?.replies.map((r) => r.kind)).toEqual(['participant/status', 'participant/compact-done']);
  });

  it('closes request-status with a status, and clear with an acknowledgement; the latest status is in telemetry', () => {
    let s = run([env({ id: 'status-request-1', from: 'human', to: ['agent-1'], kind: 'participant/request-status', payload: { fields: ['tokens'] } })]);
    s = applyEnvelope(s, { ...status('status-1', 'agent-1', { tokens: 12345, max_tokens: 20000 }, 10), correlation_id: ['status-request-1'] }, NOW);
    expect(s.participants.byId.get('agent-1')!.lastControl?.completed).toBe(true);
    expect(s.telemetry.byParticipant.get('agent-1')!.latest).toMatchObject({ id: 'status-1', payload: { tokens: 12345 } });
    s = applyEnvelopes(
      s,
      [
        env({ id: 'clear-1', at: 20, from: 'human', to: ['agent-1'], kind: 'participant/clear' }),
        env({ id: 'ack-1', at: 30, from: 'agent-1', kind: 'chat/acknowledge', correlation_id: ['clear-1'], payload: { status: 'received' } }),
      ],
      NOW,
    );
    expect(s.participants.byId.get('agent-1')!.lastControl).toMatchObject({
      id: 'clear-1',
      completed: true,
      replies: [{ id: 'ack-1', kind: 'chat/acknowledge' }],
    });
  });

  it('records invites and kicks', () => {
    const s = run([
      env({
        id: 'invite-123',
        from: 'admin',
        kind: 'space/invite',
        payload: { participant_id: 'new-agent', initial_capabilities: [{ kind: 'chat' }], reason: 'analysis' },
      }),
      env({ id: 'kick-456', at: 10, from: 'admin', kind: 'space/kick', payload: { participant_id: 'bad-agent', reason: 'violations' } }),
    ]);
    expect(s.participants.byId.get('new-agent')!).toMatchObject({ online: false, invited: { id: 'invite-123', by: 'admin', reason: 'analysis' } });
    expect(s.participants.byId.get('bad-agent')!.kicked).toMatchObject({ id: 'kick-456', by: 'admin', reason: 'violations' });
  });
});

describe('pause timeout in the store (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('lifts the pause when the clock passes its timeout', () => {
    const store = createSpaceStore({ me: 'human' });
    store.getState().ingest(env({ id: 'pause-1', from: 'human', to: ['agent-1'], kind: 'participant/pause', payload: { timeout_seconds: 30 } }));
    vi.advanceTimersByTime(29_000);
    store.getState().tick();
    expect(store.getState().participants.byId.get('agent-1')!.paused).toBeDefined();
    vi.advanceTimersByTime(1_000);
    store.getState().tick();
    expect(store.getState().participants.byId.get('agent-1')!.paused).toBeUndefined();
  });
});
