import { describe, expect, it, vi } from 'vitest';
import * as secrets from '../secrets/secret-masking';
import { applyEnvelopes } from '../sdk/model/apply-envelope';
import { createSpaceState, type SpaceState } from '../sdk/model/space-state';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { env, proposal, T0 } from '../sdk/model/testing';
import { filterLog, logEntries, logSearchText, matchesLogFilter } from './index';

// Counted, to show the filter masks an envelope once, not once per keystroke.
vi.mock('../secrets/secret-masking', async (original) => {
  const actual = await original<typeof import('../secrets/secret-masking')>();
  return { ...actual, maskValue: vi.fn(actual.maskValue) };
});

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}wxyz9876`;
const KEY = 'AKIAIOSFODNN7EXAMPLE';

function run(envelopes: StoreEnvelope[]): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human' }, T0), envelopes, T0 + 1_000);
}

const makeLog = () => [
  env({ id: 'chat-secret', at: 1, from: 'agent', kind: 'chat', payload: { text: `the deploy key is ${TOKEN}` } }),
  proposal('prop-secret', 'agent', 'tools', 'deploy', { repo: 'acme/site', token: 'hunter2-but-longer', aws: KEY }, 2),
  env({ id: 'chat-plain', at: 3, from: 'agent', kind: 'chat', payload: { text: 'nothing to hide, deploy done' } }),
];
const log = makeLog();

const ids = (s: SpaceState, text: string) => filterLog(s, { text }).map((e) => e.envelope.id);

describe('the control room’s log filter (masked text)', () => {
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

  it('keeps the other criteria as the SDK model’s filter has them', () => {
    const s = run(log);
    expect(filterLog(s, { kind: 'mcp/', text: 'deploy' }).map((e) => e.envelope.id)).toEqual(['prop-secret']);
    expect(filterLog(s, { kind: 'chat', participant: 'agent', text: '' }).map((e) => e.envelope.id)).toEqual(['chat-secret', 'chat-plain']);
    expect(filterLog(s, {})).toBe(logEntries(s));
    expect(filterLog(s, { text: 'deploy' })).toBe(filterLog(s, { text: 'deploy' }));
    const [entry] = logEntries(s);
    expect(matchesLogFilter(entry, { participant: 'someone-else' })).toBe(false);
    expect(matchesLogFilter(entry, { text: '  ' })).toBe(true);
  });

  it('masks each envelope once, however many keystrokes filter it', () => {
    const s = run(makeLog());
    const entries = logEntries(s);
    vi.mocked(secrets.maskValue).mockClear();
    for (const text of ['d', 'de', 'dep', 'depl', 'deplo', 'deploy', 'deploy k', 'deploy key']) {
      for (const e of entries) matchesLogFilter(e, { text });
    }
    expect(vi.mocked(secrets.maskValue)).toHaveBeenCalledTimes(entries.length);
    expect(logSearchText(entries[0].envelope)).not.toContain(TOKEN.toLowerCase());
    expect(logSearchText(entries[0].envelope)).toContain(`ghp_…${TOKEN.slice(-4)}`.toLowerCase());
    expect(vi.mocked(secrets.maskValue)).toHaveBeenCalledTimes(entries.length);
  });
});
