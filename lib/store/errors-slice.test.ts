import { describe, expect, it } from 'vitest';
import { createSpaceStore } from './space-store';
import { env, welcome } from '../sdk/model/testing';
import type { StoreEnvelope } from '../sdk/model/store-envelope';

const violation = (id: string, to: string) =>
  env({
    id,
    from: 'system:gateway',
    to: [to],
    kind: 'system/error',
    correlation_id: ['env-bad-call'],
    payload: { error: 'capability_violation', attempted_kind: 'mcp/request', your_capabilities: [{ kind: 'mcp/proposal' }, { kind: 'chat' }] },
  });

describe('errors (spec §3.8.2)', () => {
  it('queues system/error addressed to me once each; takeErrors empties the queue', () => {
    const store = createSpaceStore();
    store.getState().ingestMany([welcome('human', []), violation('e-1', 'human'), violation('e-2', 'someone-else')]);
    const taken = store.getState().takeErrors();
    expect(taken).toEqual([
      {
        seq: 1,
        id: 'e-1',
        at: expect.any(Number),
        error: 'capability_violation',
        message: undefined,
        correlationIds: ['env-bad-call'],
        attemptedKind: 'mcp/request',
        retryAfterMs: undefined,
        payload: expect.objectContaining({ error: 'capability_violation' }),
      },
    ]);
    expect(store.getState().takeErrors()).toEqual([]);
    // Replayed by a catch-up: not a second toast.
    store.getState().ingest(violation('e-1', 'human'));
    expect(store.getState().takeErrors()).toEqual([]);
    store.getState().ingest({ ...violation('e-3', 'human'), payload: { error: 'rate_limited', message: 'slow down', retry_after_ms: 500 } } as StoreEnvelope);
    expect(store.getState().takeErrors()).toMatchObject([{ seq: 2, error: 'rate_limited', message: 'slow down', retryAfterMs: 500 }]);
  });

  it('bounds the queue and counts what it dropped', () => {
    const store = createSpaceStore({ me: 'human', errorQueueCap: 2 });
    store.getState().ingestMany([violation('a', 'human'), violation('b', 'human'), violation('c', 'human')]);
    expect(store.getState().errors.queue.map((e) => e.id)).toEqual(['b', 'c']);
    expect(store.getState().errors.dropped).toBe(1);
  });
});
