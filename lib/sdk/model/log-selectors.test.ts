import { describe, expect, it, vi } from 'vitest';
import * as secrets from '../../secrets/secret-masking';
import { applyEnvelopes } from './apply-envelope';
import { correlationChain, filterLog, logEntries, logSearchText, matchesLogFilter, toJsonl } from './log-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { env, fulfilment, proposal, response, T0 } from './testing';

// Counted, to show the filter masks an envelope once, not once per keystroke.
vi.mock('../../secrets/secret-masking', async (original) => {
  const actual = await original<typeof import('../../secrets/secret-masking')>();
  return { ...actual, maskValue: vi.fn(actual.maskValue) };
});

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

describe('the log’s text filter (masked text)', () => {
  const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}wxyz9876`;
  const KEY = 'AKIAIOSFODNN7EXAMPLE';
  const makeLog = () => [
    env({ id: 'chat-secret', at: 1, from: 'agent', kind: 'chat', payload: { text: `the deploy key is ${TOKEN}` } }),
    proposal('prop-secret', 'agent', 'tools', 'deploy', { repo: 'acme/site', token: 'hunter2-but-longer', aws: KEY }, 2),
    env({ id: 'chat-plain', at: 3, from: 'agent', kind: 'chat', payload: { text: 'nothing to hide, deploy done' } }),
  ];
  const log = makeLog();
  const ids = (s: SpaceState, text: string) => filterLog(s, { text }).map((e) => e.envelope.id);

  it('never finds a row by the hidden part of a secret, in free text or in a secret-named field', () => {
    const s = run(log);
    // The token's middle, its unmasked start, the whole token: all hidden, so nothing matches.
    expect(ids(s, TOKEN.slice(10, 20))).toEqual([]);
    expect(ids(s, TOKEN.slice(0, 8))).toEqual([]);
    expect(ids(s, TOKEN)).toEqual([]);
    expect(ids(s, 'hunter2')).toEqual([]);
    expect(ids(s, KEY.slice(4, 12).toLowerCase())).toEqual([]);
    // One term leaking is enough to fail the whole match.
    expect(ids(s, `deploy ${TOKEN.slice(12, 18)}`)).toEqual([]);
  });

  it('finds rows by what the log shows: the masked form, its tail, and the text around it', () => {
    const s = run(log);
    expect(ids(s, `ghp_…${TOKEN.slice(-4)}`)).toEqual(['chat-secret']);
    expect(ids(s, TOKEN.slice(-4))).toEqual(['chat-secret']);
    expect(ids(s, 'DEPLOY KEY')).toEqual(['chat-secret']);
    expect(ids(s, 'deploy')).toEqual(['chat-secret', 'prop-secret', 'chat-plain']);
    expect(ids(s, 'acme/site akia…')).toEqual(['prop-secret']);
    expect(ids(s, 'hide')).toEqual(['chat-plain']);
  });

  it('combines the text with the other criteria', () => {
    const s = run(log);
    expect(filterLog(s, { kind: 'mcp/', text: 'deploy' }).map((e) => e.envelope.id)).toEqual(['prop-secret']);
    expect(filterLog(s, { kind: 'chat', participant: 'agent', text: '' }).map((e) => e.envelope.id)).toEqual(['chat-secret', 'chat-plain']);
    expect(filterLog(s, { text: 'deploy' })).toBe(filterLog(s, { text: 'deploy' }));
    const [entry] = logEntries(s);
    expect(matchesLogFilter(entry, { participant: 'someone-else' })).toBe(false);
    expect(matchesLogFilter(entry, { kind: [] })).toBe(true);
    expect(matchesLogFilter(entry, { text: '  ' })).toBe(true);
  });

  it('masks each envelope once, however many keystrokes filter it', () => {
    const s = run(makeLog());
    const entries = logEntries(s);
    vi.mocked(secrets.maskValue).mockClear();
    for (const text of ['d', 'de', 'dep', 'depl', 'deplo', 'deploy', 'deploy k', 'deploy key']) {
      const filter = { text };
      for (const e of entries) matchesLogFilter(e, filter);
    }
    expect(vi.mocked(secrets.maskValue)).toHaveBeenCalledTimes(entries.length);
    expect(logSearchText(entries[0].envelope)).not.toContain(TOKEN.toLowerCase());
    expect(logSearchText(entries[0].envelope)).toContain(`ghp_…${TOKEN.slice(-4)}`.toLowerCase());
    expect(vi.mocked(secrets.maskValue)).toHaveBeenCalledTimes(entries.length);
  });
});
