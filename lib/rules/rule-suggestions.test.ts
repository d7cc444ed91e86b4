import { describe, expect, it } from 'vitest';
import { applyEnvelopes } from '../sdk/model/apply-envelope';
import { createSpaceState } from '../sdk/model/space-state';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { env, fulfilment, proposal, T0 } from '../sdk/model/testing';
import { approvalRuleInputSchema } from './approval-rule';
import { humanDecisions } from './human-decisions';
import { previewRule } from './rule-preview';
import { suggestRules } from './rule-suggestions';

const reject = (id: string, by: string, proposalId: string, reason: string, extra: Record<string, unknown> = {}): StoreEnvelope =>
  env({ id, from: by, to: ['scribe'], kind: 'mcp/reject', correlation_id: [proposalId], payload: { reason, ...extra } });

function space(envelopes: StoreEnvelope[]) {
  return [...applyEnvelopes(createSpaceState({ me: 'human' }, T0), envelopes, T0 + 10_000).proposals.byId.values()];
}

/** Three writes to notes/ approved by a human, one approved by a rule, one to src/ rejected. */
const HISTORY = [
  proposal('p1', 'scribe', 'files', 'write_file', { path: 'notes/a.md', content: 'a' }, 0),
  fulfilment('f1', 'human', 'files', 'p1', 'write_file', { path: 'notes/a.md', content: 'a' }, 1),
  proposal('p2', 'scribe', 'files', 'write_file', { path: 'notes/b.md', content: 'b' }, 2),
  fulfilment('f2', 'human', 'files', 'p2', 'write_file', { path: 'notes/b.md', content: 'b' }, 3),
  proposal('p3', 'scribe', 'files', 'write_file', { path: 'notes/c.md', content: 'c' }, 4),
  fulfilment('f3', 'human', 'files', 'p3', 'write_file', { path: 'notes/c.md', content: 'c' }, 5),
  proposal('p4', 'scribe', 'files', 'move_file', { source: 'notes/a.md', destination: 'notes/archive/a.md' }, 6),
  reject('r4', 'rules', 'p4', 'policy', { rule: { id: 'r', version: 1, name: 'no moves' } }),
  proposal('p5', 'scribe', 'files', 'write_file', { path: 'src/app.ts', content: 'x' }, 8),
  reject('r5', 'human', 'p5', 'unsafe'),
];

describe('learning from human decisions', () => {
  it('reads who decided what, leaving out the rules’ own decisions', () => {
    expect(humanDecisions(space(HISTORY)).map((d) => [d.proposal.id, d.decision, d.by, d.reason])).toEqual([
      ['p1', 'approve', 'human', undefined],
      ['p2', 'approve', 'human', undefined],
      ['p3', 'approve', 'human', undefined],
      ['p5', 'reject', 'human', 'unsafe'],
    ]);
  });

  it('suggests the narrowest rule, in shadow mode, after the same decision three times on one shape, unless mixed, covered or dismissed', () => {
    const decisions = humanDecisions(space(HISTORY.slice(0, 6)));
    expect(suggestRules(decisions)).toEqual([
      {
        key: expect.stringContaining('approve:'),
        rule: {
          name: 'Approve scribe → files · write_file · path notes/*',
          decision: 'approve',
          mode: 'shadow',
          match: { proposer: 'scribe', target: 'files', method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/*' } },
        },
        basedOn: [expect.objectContaining({ proposal: expect.objectContaining({ id: 'p3' }) }), expect.anything(), expect.anything()],
      },
    ]);
    expect(suggestRules(decisions.slice(0, 2))).toEqual([]); // twice is not yet a habit
    expect(suggestRules(humanDecisions(space(HISTORY)))).toEqual([]); // a rejected write_file of the same shape: mixed
    const [{ key }] = suggestRules(decisions);
    expect(suggestRules(decisions, { dismissed: new Set([key]) })).toEqual([]);
    expect(suggestRules(decisions, { covered: () => true })).toEqual([]);
  });

  it('previews a rule over recent proposals: how many it would have decided, and where a person decided otherwise', () => {
    const rule = {
      ...approvalRuleInputSchema.parse({ name: 'writes', decision: 'approve', match: { tool: 'write_file' } }),
      id: 'w',
      version: 1,
      created_by: 'h',
      created_at: '',
    };
    const preview = previewRule(rule, space(HISTORY));
    expect(preview.considered).toBe(5);
    expect(preview.matched.map((p) => p.id)).toEqual(['p1', 'p2', 'p3', 'p5']);
    expect(preview.disagreements).toEqual([{ proposal: expect.objectContaining({ id: 'p5' }), human: 'reject', by: 'human' }]);
  });
});
