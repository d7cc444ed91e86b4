import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SpaceStore, StoreEnvelope } from '@/lib/store';
import { createEnvelopeBatcher } from './envelope-batcher';

const env = (id: string, kind = 'chat', to?: string[]): StoreEnvelope =>
  ({ protocol: 'mew/v0.4', id, ts: '2026-01-01T00:00:00Z', from: 'agent', kind, to, payload: {} }) as StoreEnvelope;

describe('envelope batcher', () => {
  /** What each publication made visible: the inputs that arrived (and the model applied) since the previous one. */
  let applied: string[][];
  let arrived: string[];
  let document: { visibilityState: 'visible' | 'hidden' };
  let batcher: ReturnType<typeof createEnvelopeBatcher>;
  const envelope = (e: StoreEnvelope) => {
    arrived.push(e.id);
    batcher.envelope(e);
  };
  const streamData = (streamId: string) => {
    arrived.push(`#${streamId}`);
    batcher.streamData();
  };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    vi.advanceTimersByTime(10_000); // a clock well past zero, as in a page that has been open a while
    document = { visibilityState: 'visible' };
    vi.stubGlobal('document', document);
    applied = [];
    arrived = [];
    const state = { connection: { me: 'human' }, publish: () => applied.push(arrived.splice(0)) };
    batcher = createEnvelopeBatcher({ getState: () => state } as unknown as SpaceStore);
  });
  afterEach(() => {
    batcher.dispose();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('applies routine envelopes together, at most once per 100 ms, in arrival order', () => {
    envelope(env('a')); // the first after a quiet spell goes at once
    expect(applied).toEqual([['a']]);
    envelope(env('b'));
    envelope(env('c'));
    vi.advanceTimersByTime(99);
    expect(applied).toEqual([['a']]);
    vi.advanceTimersByTime(1);
    expect(applied).toEqual([['a'], ['b', 'c']]);
  });

  it('applies a proposal, or anything addressed to me, at once, taking the routine ones queued before it along', () => {
    envelope(env('a'));
    envelope(env('b'));
    vi.advanceTimersByTime(50);
    envelope(env('p', 'mcp/proposal'));
    expect(applied).toEqual([['a'], ['b', 'p']]);
    vi.advanceTimersByTime(50);
    envelope(env('c'));
    envelope(env('to-me', 'chat', ['human']));
    expect(applied).toEqual([['a'], ['b', 'p'], ['c', 'to-me']]);
    envelope(env('to-other', 'chat', ['auditor']));
    expect(applied).toHaveLength(3);
  });

  it('applies a proposal arriving alone at once after a coalesced batch of routine envelopes', () => {
    for (let i = 0; i < 200; i++) envelope(env(`r${i}`)); // one gateway batch: its envelopes in one task
    vi.advanceTimersByTime(20);
    envelope(env('p', 'mcp/proposal'));
    expect(applied.at(-1)?.at(-1)).toBe('p');
    expect(applied.flat()).toEqual([...Array.from({ length: 200 }, (_, i) => `r${i}`), 'p']);
  });

  it('applies a burst of urgent envelopes at most once per 16 ms', () => {
    envelope(env('p1', 'mcp/proposal'));
    envelope(env('p2', 'mcp/proposal'));
    envelope(env('p3', 'mcp/proposal'));
    expect(applied).toEqual([['p1']]);
    vi.advanceTimersByTime(16);
    expect(applied).toEqual([['p1'], ['p2', 'p3']]);
  });

  it('applies stream frames in one update with the envelopes around them, in order', () => {
    envelope(env('a'));
    envelope(env('b'));
    streamData('s1');
    envelope(env('c'));
    vi.advanceTimersByTime(100);
    expect(applied).toEqual([['a'], ['b', '#s1', 'c']]);
  });

  it('while the tab is hidden, applies everything at most every 250 ms', () => {
    document.visibilityState = 'hidden';
    envelope(env('a'));
    envelope(env('p', 'mcp/proposal'));
    vi.advanceTimersByTime(249);
    expect(applied).toEqual([['a']]);
    vi.advanceTimersByTime(1);
    expect(applied).toEqual([['a'], ['p']]);
  });

  it('applies what is queued on flush (before a catch-up), and nothing after dispose', () => {
    envelope(env('a'));
    envelope(env('b'));
    batcher.flush();
    expect(applied).toEqual([['a'], ['b']]);
    envelope(env('c'));
    batcher.dispose();
    vi.advanceTimersByTime(1_000);
    expect(applied).toEqual([['a'], ['b']]);
  });
});
