import { describe, expect, it } from 'vitest';
import { applyEnvelope } from './apply-envelope';
import { createSpaceState } from './space-state';

const event = (id: string, offender: string, suppressed?: number) => ({
  protocol: 'mew/v0.4' as const,
  id,
  ts: '2026-11-24T12:00:00Z',
  from: 'system:gateway',
  to: ['human'],
  kind: 'system/security-event' as const,
  payload: { offender, error: 'capability_violation', attempted_kind: 'mcp/request', tool: 'rm', ...(suppressed !== undefined && { suppressed }) },
});

describe('security slice', () => {
  it('keeps the newest refusals in a bounded feed and counts them per offender, the untold ones included', () => {
    let state = createSpaceState({ me: 'human', securityFeedCap: 2 });
    state = applyEnvelope(state, event('a', 'agent'), 1);
    state = applyEnvelope(state, event('b', 'agent', 4), 2);
    state = applyEnvelope(state, event('c', 'scribe'), 3);
    expect(state.security.feed.map((e) => e.id)).toEqual(['b', 'c']);
    expect(state.security.feed[0]).toMatchObject({ offender: 'agent', error: 'capability_violation', attemptedKind: 'mcp/request', tool: 'rm', suppressed: 4 });
    expect(Object.fromEntries(state.security.countByOffender)).toEqual({ agent: 6, scribe: 1 });
  });
});
