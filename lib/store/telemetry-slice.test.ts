import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyEnvelopes, applyTick } from '../sdk/model/apply-envelope';
import { telemetrySeries } from '../sdk/model/space-selectors';
import { createSpaceState, type SpaceState } from '../sdk/model/space-state';
import { createSpaceStore } from './space-store';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { chartRows, contextGauge, gaugeLevel } from '../sdk/model/telemetry-slice';
import { status, T0 } from '../sdk/model/testing';

function run(envelopes: StoreEnvelope[], now = T0, options = {}): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human', ...options }, T0), envelopes, now);
}

describe('telemetry', () => {
  it('keeps a series of every numeric field of participant/status (spec §3.9.4)', () => {
    const s = run([
      status('status-1', 'agent-1', { tokens: 12345, max_tokens: 20000, messages_in_context: 128, latency_ms: 350 }, 0),
      status('status-2', 'agent-1', { tokens: 15000, max_tokens: 20000, messages_in_context: 140, latency_ms: 410, cost_usd: 0.12, status: 'ok' }, 10_000),
    ]);
    const t = s.telemetry.byParticipant.get('agent-1')!;
    expect(t.fields).toEqual(['tokens', 'max_tokens', 'messages_in_context', 'latency_ms', 'cost_usd']);
    expect(t.samples.map((x) => x.values.tokens)).toEqual([12345, 15000]);
    expect(t.latest).toMatchObject({ id: 'status-2', payload: { status: 'ok' } });
    expect(telemetrySeries(s, 'agent-1', 'latency_ms')).toEqual([
      { at: T0, value: 350 },
      { at: T0 + 10_000, value: 410 },
    ]);
    expect(telemetrySeries(s, 'agent-1', 'cost_usd')).toEqual([{ at: T0 + 10_000, value: 0.12 }]);
    expect(chartRows(t)[1]).toEqual({ at: T0 + 10_000, tokens: 15000, max_tokens: 20000, messages_in_context: 140, latency_ms: 410, cost_usd: 0.12 });
  });

  it('computes the context gauge: green < 70 %, amber < 90 %, red ≥ 90 %', () => {
    expect(gaugeLevel(0.69)).toBe('green');
    expect(gaugeLevel(0.7)).toBe('amber');
    expect(gaugeLevel(0.899)).toBe('amber');
    expect(gaugeLevel(0.9)).toBe('red');
    expect(contextGauge({ tokens: 10, max_tokens: 0 })).toBeUndefined();
    const s = run([
      status('a', 'green-agent', { tokens: 12345, max_tokens: 20000 }),
      status('b', 'amber-agent', { tokens: 15000, max_tokens: 20000 }),
      status('c', 'red-agent', { tokens: 18000, max_tokens: 20000 }),
    ]);
    expect(s.telemetry.byParticipant.get('green-agent')!.gauge).toEqual({ tokens: 12345, maxTokens: 20000, ratio: 0.61725, level: 'green' });
    expect(s.telemetry.byParticipant.get('amber-agent')!.gauge?.level).toBe('amber');
    expect(s.telemetry.byParticipant.get('red-agent')!.gauge?.level).toBe('red');
  });

  it('bounds the series and keeps it in time order when a catch-up replays older statuses', () => {
    const s = run(
      [
        status('s3', 'a', { tokens: 3 }, 3000),
        status('s1', 'a', { tokens: 1 }, 1000),
        status('s4', 'a', { tokens: 4 }, 4000),
        status('s2', 'a', { tokens: 2 }, 2000),
      ],
      T0,
      { telemetryCap: 3 },
    );
    expect(s.telemetry.byParticipant.get('a')!.samples.map((x) => x.id)).toEqual(['s2', 's3', 's4']);
    expect(s.telemetry.byParticipant.get('a')!.latest.id).toBe('s4');
  });

  it('turns stale at tick when the latest status is older than STALE_AFTER_MS, fresh again on a new status', () => {
    let s = run([status('s1', 'a', { tokens: 1 }, 0)]);
    expect(s.telemetry.byParticipant.get('a')!.stale).toBe(false);
    s = applyTick(s, T0 + 60_000);
    expect(s.telemetry.byParticipant.get('a')!.stale).toBe(false);
    const unchanged = s.telemetry;
    s = applyTick(s, T0 + 60_000);
    expect(s.telemetry).toBe(unchanged); // nothing changed, same identity
    s = applyTick(s, T0 + 60_001);
    expect(s.telemetry.byParticipant.get('a')!.stale).toBe(true);
    s = applyEnvelopes(s, [status('s2', 'a', { tokens: 2 }, 61_000)], T0 + 61_000);
    expect(s.telemetry.byParticipant.get('a')!.stale).toBe(false);
  });
});

describe('staleness in the store (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('marks a silent participant stale after a minute of ticks', () => {
    const store = createSpaceStore({ me: 'human', staleAfterMs: 60_000 });
    store.getState().ingest(status('s1', 'agent-1', { tokens: 100, max_tokens: 1000 }, 0));
    vi.advanceTimersByTime(60_000);
    store.getState().tick();
    expect(store.getState().telemetry.byParticipant.get('agent-1')!.stale).toBe(false);
    vi.advanceTimersByTime(1);
    store.getState().tick();
    expect(store.getState().telemetry.byParticipant.get('agent-1')!.stale).toBe(true);
  });
});
