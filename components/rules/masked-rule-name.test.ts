import { describe, expect, it } from 'vitest';
import { describeMatch } from '@/lib/rules/rule-shape';
import { maskedRuleName, RULE_NAME_MAX, ruleRevealId } from './masked-rule-name';

const token = `ghp_${'K7m2'.repeat(8)}wxyz`;
const match = { proposer: 'agent', target: 'tools', method: 'tools/call', tool: 'deploy', arguments: { repo: 'acme/*', token, note: `push with ${token}` } };
const shown = 'agent → tools · deploy · repo acme/* · token …wxyz · note push with ghp_…wxyz';

describe('a rule’s name, masked', () => {
  it('puts the description of its match back masked, the match itself untouched', () => {
    const rule = { name: `${describeMatch(match)} (always)`, match };
    expect(maskedRuleName(rule)).toBe(`${shown} (always)`);
    expect(rule.match.arguments.token).toBe(token);
    expect(maskedRuleName({ name: `Approve ${describeMatch(match)}`, match })).toBe(`Approve ${shown}`);
  });

  it('masks a description cut short at the longest name, and secrets copied elsewhere into a name', () => {
    const long = { ...match, tool: `deploy_${'x'.repeat(80)}` };
    const cut = `Approve ${describeMatch(long)}`.slice(0, RULE_NAME_MAX);
    const masked = maskedRuleName({ name: cut, match: long });
    expect(masked).toBe(
      `Approve ${describeMatch({ ...long, arguments: { repo: 'acme/*', token: '…wxyz', note: 'push with ghp_…wxyz' } })}`.slice(0, RULE_NAME_MAX),
    );
    expect(masked).not.toContain(token.slice(0, 12));
    const hunter = { ...match, arguments: { password: 'hunter2-is-long' } };
    expect(maskedRuleName({ name: 'deploys with hunter2-is-long', match: hunter })).toBe('deploys with …long');
    expect(maskedRuleName({ name: `my own name with ${token}`, match: { tool: 'x' } })).toBe('my own name with ghp_…wxyz');
  });

  it('leaves a name without secrets, or already masked, as it is', () => {
    const plain = { name: 'agent → tools · write_file · path notes/* (always)', match: { proposer: 'agent', arguments: { path: 'notes/*' } } };
    expect(maskedRuleName(plain)).toBe(plain.name);
    const once = maskedRuleName({ name: `${describeMatch(match)} (for 1 hour)`, match });
    expect(maskedRuleName({ name: once, match })).toBe(once);
    // A short secret-named value is masked in the description, not hunted for in ordinary words.
    expect(maskedRuleName({ name: 'a tab · key a', match: { arguments: { api_key: 'a' } } })).toBe('a tab · key a');
  });

  it('records a reveal of a rule’s secrets under the rule', () => {
    expect(ruleRevealId('r1')).toBe('rule:r1');
    expect(ruleRevealId(undefined)).toBe('rule:draft');
  });
});
