import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOG_CAP } from '../sdk/model/store-defaults';
import { logEntries } from '../sdk/model/log-selectors';
import { pendingProposals } from '../sdk/model/proposal-selectors';
import { startClock } from './space-clock';
import { awaitingMyAck, participantList } from '../sdk/model/space-selectors';
import { createSpaceStore } from './space-store';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { KINDS, parseEnvelope } from '../protocol';
import { env, fulfilment, proposal, response, status, T0, welcome } from '../sdk/model/testing';
import { ParticipantModel } from '../sdk/participant-model';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => vi.useRealTimers());

const session: StoreEnvelope[] = [
  welcome('human', ['agent-1', 'fs']),
  proposal('p-1', 'agent-1', 'fs', 'write_file', { path: 'a' }, 10),
  proposal('p-2', 'agent-1', 'fs', 'write_file', { path: 'b' }, 20),
  fulfilment('f-1', 'orchestrator', 'fs', 'p-1', 'write_file', { path: 'a' }, 30),
  response('r-1', 'fs', 'orchestrator', 'f-1', { result: { content: [] } }, 40),
  env({ id: 'c-1', at: 50, from: 'agent-1', to: ['human'], kind: 'chat', payload: { text: 'ok?' } }),
  env({ id: 'rs', at: 60, from: 'agent-1', kind: 'reasoning/start', payload: { message: 'thinking' } }),
  env({ id: 'rt', at: 70, from: 'agent-1', kind: 'reasoning/thought', context: 'rs', payload: { message: 'step' } }),
  status('st', 'agent-1', { tokens: 100, max_tokens: 1000 }, 80),
];

describe('createSpaceStore', () => {
  it('is idempotent: a catch-up replaying envelopes already seen changes nothing and notifies nobody', () => {
    const store = createSpaceStore({ me: 'human' });
    store.getState().ingestMany(session);
    const before = store.getState();
    const listener = vi.fn();
    store.subscribe(listener);

    store.getState().ingestMany(session); // reconnect catch-up from history
    for (const e of session) store.getState().ingest(e);
    expect(listener).not.toHaveBeenCalled();
    expect(store.getState()).toBe(before);
    expect(before.reasoning.byId.get('rs')!.thoughts).toHaveLength(1);
    expect(before.chat.messages.size).toBe(1);
    expect(before.telemetry.byParticipant.get('agent-1')!.samples).toHaveLength(1);
    expect(before.log.total).toBe(session.length);

    // Only what is new is applied.
    store
      .getState()
      .ingestMany([...session, env({ id: 'rt-2', at: 90, from: 'agent-1', kind: 'reasoning/thought', context: 'rs', payload: { message: 'step 2' } })]);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getState().reasoning.byId.get('rs')!.thoughts).toHaveLength(2);
    expect(store.getState().log.total).toBe(session.length + 1);
  });

  it('applies a whole batch of envelopes and stream frames with one notification', () => {
    const store = createSpaceStore({ me: 'human' });
    const listener = vi.fn();
    store.subscribe(listener);
    store.getState().ingestMany([...session, { streamId: 'unknown', data: 'frame' }]);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getState().log.total).toBe(session.length);
    store.getState().ingestMany(session); // all seen already
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('ignores things that are not envelopes', () => {
    const store = createSpaceStore();
    const before = store.getState();
    store.getState().ingest({ kind: 'chat', from: 'x' } as unknown as StoreEnvelope);
    store.getState().ingest(null as unknown as StoreEnvelope);
    expect(store.getState()).toBe(before);
  });

  it('reduces whatever valid envelope the client delivers, odd loose fields included, and survives garbage stream frames', () => {
    const store = createSpaceStore({ me: 'human' });
    store.getState().ingestMany(session);
    const junk: unknown[] = [
      undefined,
      null,
      42,
      'text',
      [],
      {},
      { you: 'x', participants: 'y', participant: 7, capabilities: {}, tools: 3, text: '', result: 5 },
    ];
    let delivered = 0;
    let n = 0;
    for (const kind of KINDS) {
      for (const payload of junk) {
        const e = env({
          id: `junk-${n++}`,
          from: 'agent-1',
          to: ['human'],
          kind,
          correlation_id: ['p-2', 'f-1', 'rs', 'c-1'],
          context: 'rs',
          payload: payload as never,
        });
        // MEWClient validates every frame once, on arrival: what fails here never reaches the model.
        if (!parseEnvelope(e).ok) continue;
        delivered++;
        expect(() => store.getState().ingest(e), `${kind} ${JSON.stringify(payload)}`).not.toThrow();
      }
    }
    expect(delivered).toBeGreaterThan(KINDS.length);
    expect(() => store.getState().ingestMany([{ streamId: 'unknown', data: '{"broken' }])).not.toThrow();
    expect(store.getState().log.total).toBe(session.length + delivered);
  });

  it('tracks the connection: transport status, then ready on my welcome', () => {
    const store = createSpaceStore();
    store.getState().setConnection('connecting');
    store.getState().setConnection('connected');
    expect(store.getState().connection).toMatchObject({ status: 'connected', since: T0 });
    vi.advanceTimersByTime(50);
    store.getState().ingest(welcome('human', ['agent-1']));
    expect(store.getState().connection).toMatchObject({ status: 'ready', me: 'human', since: T0 + 50, welcomeId: 'welcome-human-0' });
    store.getState().setConnection('disconnected', 'socket closed (1006)');
    expect(store.getState().connection).toMatchObject({ status: 'disconnected', detail: 'socket closed (1006)', me: 'human' });
  });

  it('keeps selector results identical across reads until the slice changes (safe for useStore)', () => {
    const store = createSpaceStore({ me: 'human' });
    store.getState().ingestMany(session);
    const queue = pendingProposals(store.getState());
    const rail = participantList(store.getState());
    const acks = awaitingMyAck(store.getState());
    store.getState().ingest(env({ id: 'c-2', at: 90, from: 'agent-1', kind: 'chat', payload: { text: 'broadcast' } }));
    expect(pendingProposals(store.getState())).toBe(queue);
    expect(awaitingMyAck(store.getState())).toBe(acks);
    expect(participantList(store.getState())).toBe(rail);
    expect(queue.map((p) => p.id)).toEqual(['p-2']);
    // A status from a known participant is telemetry only: the rail (re-rendered on every change) stays put.
    const telemetry = store.getState().telemetry;
    store.getState().ingest(status('st-2', 'agent-1', { tokens: 200, max_tokens: 1000 }, 95));
    expect(store.getState().telemetry).not.toBe(telemetry);
    expect(participantList(store.getState())).toBe(rail);
    expect(pendingProposals(store.getState())).toBe(queue);
    // A status from someone never seen introduces them.
    store.getState().ingest(status('st-3', 'newcomer', { tokens: 1, max_tokens: 1000 }, 96));
    expect(participantList(store.getState()).map((p) => p.id)).toContain('newcomer');
  });

  it('expires proposals on the clock (startClock), and stops when asked', () => {
    const store = createSpaceStore({ me: 'human', proposalTimeoutMs: 10_000 });
    const stop = startClock(store, 1_000);
    store.getState().ingest(proposal('p', 'agent-1', 'fs', 'rm', {}, 0));
    vi.advanceTimersByTime(9_000);
    expect(store.getState().proposals.byId.get('p')!.state).toBe('pending');
    expect(store.getState().clock).toBe(T0 + 9_000);
    vi.advanceTimersByTime(1_000);
    expect(store.getState().proposals.byId.get('p')!.state).toBe('expired');
    stop();
    vi.advanceTimersByTime(5_000);
    expect(store.getState().clock).toBe(T0 + 10_000);
  });

  it('stays cheap when a runaway agent floods pending proposals and live reasoning past their caps (never dropped)', () => {
    const store = createSpaceStore({ me: 'human', proposalCap: 100, reasoningThreadsCap: 100 });
    const started = performance.now();
    const flood: StoreEnvelope[] = [];
    for (let i = 0; i < 3_000; i++) {
      flood.push(proposal(`p-${i}`, 'runaway', 'fs', 'rm', { i }, i));
      flood.push(env({ id: `r-${i}`, at: i, from: 'runaway', kind: 'reasoning/start', payload: {} }));
    }
    store.getState().ingestMany(flood);
    expect(store.getState().proposals.byId.size).toBe(3_000);
    expect(store.getState().reasoning.byId.size).toBe(3_000);
    // Once they settle, the cap applies again at the next insertion past the threshold.
    store
      .getState()
      .ingestMany(Array.from({ length: 3_000 }, (_, i) => env({ id: `w-${i}`, at: 5_000, from: 'runaway', kind: 'mcp/withdraw', correlation_id: [`p-${i}`] })));
    store.getState().ingestMany(Array.from({ length: 400 }, (_, i) => proposal(`q-${i}`, 'runaway', 'fs', 'rm', {}, 6_000 + i)));
    expect(store.getState().proposals.byId.size).toBeLessThanOrEqual(400 + 10);
    expect(pendingProposals(store.getState())).toHaveLength(400);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("takes 500 envelopes per second cheaply: 20 000 envelopes through the log's cap", () => {
    const store = createSpaceStore({ me: 'human' });
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) {
      store.getState().ingest(
        env({
          id: `m-${i}`,
          at: i,
          from: `agent-${i % 5}`,
          kind: i % 10 === 0 ? 'participant/status' : 'chat',
          payload: { text: `message ${i}`, tokens: i, max_tokens: 50_000, messages_in_context: i },
        }),
      );
    }
    const elapsed = performance.now() - started;
    expect(store.getState().log).toMatchObject({ size: LOG_CAP, evicted: 20_000 - LOG_CAP, total: 20_000 });
    expect(logEntries(store.getState())[0].envelope.id).toBe(`m-${20_000 - LOG_CAP}`);
    expect(store.getState().telemetry.byParticipant.get('agent-0')!.samples).toHaveLength(500);
    expect(elapsed).toBeLessThan(5_000); // ~40 s of traffic at 500/s; typically well under a second
  });

  it("is a view of a participant's model: a card shows expired exactly when the participant no longer has it pending", () => {
    const expired: string[] = [];
    const model = new ParticipantModel({ me: 'human', proposalTimeoutMs: 10_000 }, (proposals) => expired.push(...proposals.map((p) => p.id)));
    const store = createSpaceStore({ model });
    const card = (id: string) => store.getState().proposals.byId.get(id)?.state;
    const sdkPending = () => model.pendingProposals().map((p) => p.id);

    // The participant applies what arrives; subscribers hear of it when the store publishes (the control room batches that).
    const listener = vi.fn();
    store.subscribe(listener);
    model.observe(proposal('p', 'agent-1', 'fs', 'rm', {}, 0), T0);
    model.observe(proposal('q', 'agent-1', 'fs', 'rm', {}, 5_000), T0 + 5_000);
    expect(listener).not.toHaveBeenCalled();
    store.getState().publish();
    store.getState().publish(); // nothing new: no notification
    expect(listener).toHaveBeenCalledTimes(1);
    expect(pendingProposals(store.getState()).map((p) => p.id)).toEqual(['p', 'q']);
    expect(sdkPending()).toEqual(['p', 'q']);

    // The control room's clock expires one: the SDK agrees at once, and the participant hears of it.
    store.getState().tick(T0 + 10_000);
    expect(card('p')).toBe('expired');
    expect(sdkPending()).toEqual(['q']);
    expect(expired).toEqual(['p']);

    // And the other way: the participant's own expiry timer ticks the model; the next publication shows it.
    model.tick(T0 + 15_000);
    expect(sdkPending()).toEqual([]);
    store.getState().publish();
    expect(card('q')).toBe('expired');
    expect(pendingProposals(store.getState())).toEqual([]);
    expect(expired).toEqual(['p', 'q']);
  });
});
