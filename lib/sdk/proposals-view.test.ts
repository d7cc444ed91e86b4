import { describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import { ProposalsView } from './proposals-view';

let seq = 0;
function envelope(kind: string, from: string, extra: Record<string, unknown> = {}): AnyEnvelope {
  return { protocol: 'mew/v0.4', id: `e${++seq}`, ts: '2025-01-01T00:00:00Z', from, kind, payload: {}, ...extra } as AnyEnvelope;
}
const proposal = (from = 'agent') => envelope('mcp/proposal', from, { to: ['calc'], payload: { method: 'tools/call', params: { name: 'add' } } });
const NOW = Date.parse('2025-01-01T00:00:01Z');

describe('ProposalsView: the model’s proposals reducer as the SDK’s view', () => {
  it('reports the proposals an envelope creates or moves along, with the model’s states', () => {
    const view = new ProposalsView();
    const p = proposal();
    expect(view.observe(p, 'me', NOW).map((x) => [x.id, x.state])).toEqual([[p.id, 'pending']]);
    const fulfilment = envelope('mcp/request', 'human', { to: ['calc'], correlation_id: [p.id], payload: { method: 'tools/call' } });
    expect(view.observe(fulfilment, 'me', NOW).map((x) => x.state)).toEqual(['fulfilled']);
    const result = envelope('mcp/response', 'calc', { to: ['human'], correlation_id: [fulfilment.id], payload: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
    expect(view.observe(result, 'me', NOW).map((x) => x.state)).toEqual(['completed']);
    expect(view.get(p.id)?.fulfilment?.by).toBe('human');
  });

  it('keeps a decision: a later withdraw does not turn a fulfilled proposal into a withdrawn one', () => {
    const view = new ProposalsView();
    const p = proposal();
    view.observe(p, 'me', NOW);
    view.observe(envelope('mcp/request', 'human', { to: ['calc'], correlation_id: [p.id], payload: { method: 'tools/call' } }), 'me', NOW);
    const [changed] = view.observe(envelope('mcp/withdraw', 'agent', { correlation_id: [p.id] }), 'me', NOW);
    expect(changed).toMatchObject({ state: 'fulfilled', withdrawal: { id: expect.any(String) } }); // recorded, not undone
  });

  it('counts a withdrawal only from the proposer, and leaves my own proposals out of the pending view', () => {
    const view = new ProposalsView();
    const p = proposal();
    view.observe(p, 'me', NOW);
    expect(view.observe(envelope('mcp/withdraw', 'mallory', { correlation_id: [p.id] }), 'me', NOW)).toEqual([]);
    const mine = proposal('me');
    expect(view.observe(mine, 'me', NOW)).toEqual([]);
    expect(view.pending('me').map((x) => x.id)).toEqual([p.id]);
  });
});
