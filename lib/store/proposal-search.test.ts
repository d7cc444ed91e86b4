import { describe, expect, it } from 'vitest';
import { applyEnvelopes } from '../sdk/model/apply-envelope';
import { createSpaceState, type SpaceState } from '../sdk/model/space-state';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { env, proposal, T0 } from '../sdk/model/testing';
import { matchesProposal, proposalHistory } from './index';

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}wxyz9876`;

function run(envelopes: StoreEnvelope[]): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human' }, T0), envelopes, T0 + 1_000);
}

const rejected = [
  proposal('p-1', 'agent', 'tools', 'deploy', { repo: 'acme/site', token: TOKEN, password: 'hunter2-longer' }, 0),
  env({ id: 'rej-1', at: 5, from: 'human', to: ['agent'], correlation_id: ['p-1'], kind: 'mcp/reject', payload: { reason: 'unsafe' } }),
  env({ id: 'why-1', at: 6, from: 'human', to: ['agent'], correlation_id: ['rej-1'], kind: 'chat', payload: { text: `never paste ${TOKEN} again` } }),
];

const ids = (s: SpaceState, query: string) => proposalHistory(s, query).map((p) => p.id);

describe('the control room’s proposal history search (masked text)', () => {
  it('never finds a proposal by the hidden part of a secret in its arguments or its reject’s explanation', () => {
    const s = run(rejected);
    expect(ids(s, TOKEN.slice(8, 20))).toEqual([]);
    expect(ids(s, TOKEN)).toEqual([]);
    expect(ids(s, 'hunter2')).toEqual([]);
    expect(ids(s, `acme ${TOKEN.slice(10, 16)}`)).toEqual([]);
  });

  it('finds it by what its card shows', () => {
    const s = run(rejected);
    expect(ids(s, '')).toEqual(['p-1']);
    expect(ids(s, 'acme/site deploy')).toEqual(['p-1']);
    expect(ids(s, `ghp_…${TOKEN.slice(-4)}`)).toEqual(['p-1']);
    expect(ids(s, 'never paste unsafe')).toEqual(['p-1']);
    const p = s.proposals.byId.get('p-1')!;
    expect(matchesProposal(p, '   ')).toBe(true);
    expect(matchesProposal(p, 'AGENT rejected')).toBe(true);
    expect(proposalHistory(s, 'acme')).toBe(proposalHistory(s, 'acme'));
  });
});
