import { describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import { ProposalTracker } from './proposal-tracker';

let seq = 0;
function envelope(kind: string, from: string, extra: Record<string, unknown> = {}): AnyEnvelope {
  return { protocol: 'mew/v0.4', id: `e${++seq}`, ts: '2025-01-01T00:00:00Z', from, kind, payload: {}, ...extra } as AnyEnvelope;
}
const proposal = (from = 'agent') => envelope('mcp/proposal', from, { to: ['calc'], payload: { method: 'tools/call' } });

describe('ProposalTracker', () => {
  it('makes room by dropping decided proposals before pending ones', () => {
    const tracker = new ProposalTracker(2);
    const first = proposal();
    const second = proposal();
    tracker.observe(first, 'me');
    tracker.observe(second, 'me');
    tracker.observe(envelope('mcp/reject', 'human', { correlation_id: [second.id] }), 'me');
    tracker.observe(proposal(), 'me');
    expect(tracker.get(first.id)?.status).toBe('pending'); // older, but still pending: kept
    expect(tracker.get(second.id)).toBeUndefined();
    tracker.observe(proposal(), 'me'); // all pending now: the oldest goes
    expect(tracker.get(first.id)).toBeUndefined();
  });

  it('keeps a decision: a later withdraw does not turn a fulfilled proposal into a withdrawn one', () => {
    const tracker = new ProposalTracker();
    const p = proposal();
    tracker.observe(p, 'me');
    tracker.observe(envelope('mcp/request', 'human', { to: ['calc'], correlation_id: [p.id], payload: { method: 'tools/call' } }), 'me');
    expect(tracker.observe(envelope('mcp/withdraw', 'agent', { correlation_id: [p.id] }), 'me')).toBeUndefined();
    expect(tracker.get(p.id)).toMatchObject({ status: 'fulfilled', decidedBy: 'human' });
  });

  it('does not track my own proposals', () => {
    const tracker = new ProposalTracker();
    expect(tracker.observe(proposal('me'), 'me')).toBeUndefined();
    expect(tracker.pending()).toEqual([]);
  });
});
