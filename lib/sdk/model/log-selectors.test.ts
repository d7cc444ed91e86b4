import { describe, expect, it } from 'vitest';
import { applyEnvelopes } from './apply-envelope';
import { correlationChain, filterLog, logEntries, toJsonl } from './log-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { env, fulfilment, proposal, response, T0 } from './testing';

const NOW = T0 + 1_000;

function run(envelopes: StoreEnvelope[], options = {}): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human', ...options }, T0), envelopes, NOW);
}

const chain = [
  proposal('env-req-1', 'untrusted-agent', 'target-agent', 'dangerous_operation', { target: 'production' }, 0),
  env({
    id: 'reject-789',
    at: 5,
    from: 'filesystem-agent',
    to: ['untrusted-agent'],
    correlation_id: ['env-req-1'],
    kind: 'mcp/reject',
    payload: { reason: 'unsafe' },
  }),
  env({
    id: 'chat-790',
    at: 6,
    from: 'filesystem-agent',
    to: ['untrusted-agent'],
    correlation_id: ['reject-789'],
    kind: 'chat',
    payload: { text: 'Busy, retry later' },
  }),
  fulfilment('env-fulfill-1', 'human-user', 'target-agent', 'env-req-1', 'dangerous_operation', { target: 'production' }, 10),
  response('env-fulfill-resp-1', 'target-agent', 'human-user', 'env-fulfill-1', { result: { content: [] } }, 20),
  env({ id: 'chat-other', at: 30, from: 'user-alice', kind: 'chat', context: 'workflow-123/step-1', payload: { text: 'Hello everyone!' } }),
];

describe('envelope log', () => {
  it('keeps every envelope up to the cap, evicting the oldest and counting evictions', () => {
    const envelopes = Array.from({ length: 12 }, (_, i) => env({ id: `c-${i}`, at: i, from: 'a', kind: 'chat', payload: { text: `${i}` } }));
    const s = run(envelopes, { logCap: 5 });
    expect(logEntries(s).map((e) => e.envelope.id)).toEqual(['c-7', 'c-8', 'c-9', 'c-10', 'c-11']);
    expect(logEntries(s).map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(s.log).toMatchObject({ size: 5, evicted: 7, total: 12 });
    expect(s.log.entries.get('c-0')).toBeUndefined();
  });

  it('dates each entry once, by the envelope’s ts, else by when it was received', () => {
    const s = run([
      env({ id: 'dated', at: 7, from: 'a', kind: 'chat', payload: { text: 'x' } }),
      env({ id: 'undated', ts: 'not a time', from: 'a', kind: 'chat', payload: { text: 'y' } }),
    ]);
    expect(logEntries(s).map((e) => [e.envelope.id, e.at, e.receivedAt])).toEqual([
      ['dated', T0 + 7, NOW],
      ['undated', NOW, NOW],
    ]);
  });

  it('filters by kind prefix, participant (from or to), context and free text', () => {
    const s = run(chain);
    const ids = (filter: Parameters<typeof filterLog>[1]) => filterLog(s, filter).map((e) => e.envelope.id);
    expect(ids({ kind: 'mcp/' })).toEqual(['env-req-1', 'reject-789', 'env-fulfill-1', 'env-fulfill-resp-1']);
    expect(ids({ kind: ['chat', 'mcp/reject'] })).toEqual(['reject-789', 'chat-790', 'chat-other']);
    expect(ids({ participant: 'human-user' })).toEqual(['env-fulfill-1', 'env-fulfill-resp-1']);
    expect(ids({ context: 'workflow-123' })).toEqual(['chat-other']);
    expect(ids({ text: 'PRODUCTION request' })).toEqual(['env-fulfill-1']);
    expect(ids({ kind: 'chat', text: 'busy' })).toEqual(['chat-790']);
    expect(filterLog(s, {})).toBe(logEntries(s));
    expect(filterLog(s, { kind: 'mcp/' })).toBe(filterLog(s, { kind: 'mcp/' }));
  });

  it('walks the correlation chain both ways', () => {
    const s = run(chain);
    const fromProposal = correlationChain(s, 'env-req-1');
    expect(fromProposal.root?.envelope.id).toBe('env-req-1');
    expect(fromProposal.ancestors).toEqual([]);
    expect(fromProposal.descendants.map((e) => e.envelope.id).sort()).toEqual(['chat-790', 'env-fulfill-1', 'env-fulfill-resp-1', 'reject-789']);
    expect(fromProposal.entries.map((e) => e.envelope.id)).toEqual(['env-req-1', 'reject-789', 'chat-790', 'env-fulfill-1', 'env-fulfill-resp-1']);

    const fromResponse = correlationChain(s, 'env-fulfill-resp-1');
    expect(fromResponse.ancestors.map((e) => e.envelope.id)).toEqual(['env-fulfill-1', 'env-req-1']);
    expect(fromResponse.descendants).toEqual([]);

    const fromFulfilment = correlationChain(s, 'env-fulfill-1');
    expect(fromFulfilment.entries.map((e) => e.envelope.id)).toEqual(['env-req-1', 'env-fulfill-1', 'env-fulfill-resp-1']);
    expect(correlationChain(s, 'chat-other').entries.map((e) => e.envelope.id)).toEqual(['chat-other']);
  });

  it('reports chain links that are no longer in the log', () => {
    const s = run(chain, { logCap: 3 });
    const c = correlationChain(s, 'env-fulfill-resp-1');
    expect(c.ancestors.map((e) => e.envelope.id)).toEqual(['env-fulfill-1']);
    expect(c.missing).toEqual(['env-req-1']);
  });

  it('exports JSON Lines', () => {
    const s = run(chain.slice(0, 2));
    const jsonl = toJsonl(logEntries(s));
    expect(jsonl.endsWith('\n')).toBe(true);
    expect(
      jsonl
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(chain.slice(0, 2));
    expect(toJsonl([chain[0]])).toBe(`${JSON.stringify(chain[0])}\n`);
    expect(toJsonl([])).toBe('');
  });
});
