import { describe, expect, it } from 'vitest';
import { approvalRuleInputSchema, type ApprovalRule, type ApprovalRuleInput } from './approval-rule';
import { RuleEngine, validateRule } from './rule-engine';

const NOW = Date.parse('2026-11-24T12:00:00Z');
let nextId = 1;

function rule(input: ApprovalRuleInput): ApprovalRule {
  return { ...approvalRuleInputSchema.parse(input), id: `r${nextId++}`, version: 1, created_by: 'human', created_at: '2026-11-24T11:00:00Z' };
}

const write = (path: string, proposer = 'scribe') => ({
  proposer,
  targets: ['files'],
  method: 'tools/call',
  tool: 'write_file',
  arguments: { path, content: 'x' },
});

describe('RuleEngine', () => {
  it('matches on proposer, target, method, tool and arguments with the capability pattern language', () => {
    const notes = rule({
      name: 'notes',
      decision: 'approve',
      match: { proposer: 'scribe', target: 'files', tool: ['write_file', 'edit_file'], arguments: { path: 'notes/*' } },
    });
    const engine = new RuleEngine([notes]);
    expect(engine.decide(write('notes/a.md'), NOW)).toMatchObject({ decision: 'approve', rule: { id: notes.id } });
    expect(engine.decide(write('src/a.ts'), NOW).decision).toBe('none');
    expect(engine.decide(write('notes/a.md', 'auditor'), NOW).decision).toBe('none');
    expect(engine.decide({ ...write('notes/a.md'), targets: ['other', 'files'] }, NOW).decision).toBe('approve'); // any target
    expect(engine.decide({ ...write('notes/a.md'), tool: 'delete_file' }, NOW).decision).toBe('none');
    // JSONPath and negation reach into the arguments too.
    const noSecrets = new RuleEngine([rule({ name: 'no secrets', decision: 'approve', match: { arguments: { '$.path': '!*.env' } } })]);
    expect(noSecrets.decide(write('notes/a.md'), NOW).decision).toBe('approve');
    expect(noSecrets.decide(write('app/.env'), NOW).decision).toBe('none');
  });

  it('keeps a disabled rule on file without it deciding or counting anything', () => {
    const engine = new RuleEngine([rule({ name: 'off', decision: 'reject', mode: 'disabled', match: { tool: 'write_file' } })]);
    expect(engine.decide(write('notes/a.md'), NOW)).toEqual({ decision: 'none', shadow: [] });
  });

  it('lets the strictest matching rule win: reject over ask over approve, whatever the order', () => {
    const approve = rule({ name: 'all writes', decision: 'approve', match: { tool: 'write_file' } });
    const ask = rule({ name: 'config asks', decision: 'ask', match: { arguments: { path: 'config/*' } } });
    const reject = rule({ name: 'no secrets', decision: 'reject', reason: 'secrets stay put', match: { arguments: { path: '*.env' } } });
    for (const order of [
      [approve, ask, reject],
      [reject, ask, approve],
    ]) {
      const engine = new RuleEngine(order);
      expect(engine.decide(write('notes/a.md'), NOW).rule?.name).toBe('all writes');
      expect(engine.decide(write('config/app.yaml'), NOW).decision).toBe('ask');
      expect(engine.decide(write('config/.env'), NOW)).toMatchObject({ decision: 'reject', rule: { reason: 'secrets stay put' } });
    }
  });

  it('never approves a dangerous or confirm-first tool unless the rule says allow_dangerous; rejects still apply', () => {
    const plain = rule({ name: 'writes', decision: 'approve', match: { tool: 'write_file' } });
    const bold = rule({ name: 'writes, dangerous too', decision: 'approve', allow_dangerous: true, match: { tool: 'write_file' } });
    expect(new RuleEngine([plain]).decide(write('a'), NOW, { risk_level: 'dangerous' }).decision).toBe('none');
    expect(new RuleEngine([plain]).decide(write('a'), NOW, { risk_level: 'moderate', confirmation_required: true }).decision).toBe('none');
    expect(new RuleEngine([plain]).decide(write('a'), NOW, { risk_level: 'moderate' }).decision).toBe('approve');
    expect(new RuleEngine([bold]).decide(write('a'), NOW, { risk_level: 'dangerous' }).decision).toBe('approve');
    const reject = rule({ name: 'no', decision: 'reject', match: { tool: 'write_file' } });
    expect(new RuleEngine([reject]).decide(write('a'), NOW, { risk_level: 'dangerous' }).decision).toBe('reject');
  });

  it('steps aside once expired, and once its hourly quota is spent (until the hour moves on)', () => {
    const expiring = rule({ name: 'for an hour', decision: 'approve', expires_at: '2026-11-24T12:30:00Z', match: {} });
    const engine = new RuleEngine([expiring]);
    expect(engine.decide(write('a'), NOW).decision).toBe('approve');
    expect(engine.decide(write('a'), Date.parse('2026-11-24T12:30:00Z')).decision).toBe('none');

    const quota = new RuleEngine([rule({ name: 'two an hour', decision: 'approve', max_per_hour: 2, match: {} })]);
    expect([1, 2, 3].map((i) => quota.decide(write('a'), NOW + i).decision)).toEqual(['approve', 'approve', 'none']);
    expect(quota.decide(write('a'), NOW + 60 * 60 * 1000 + 2).decision).toBe('approve');
  });

  it('counts what shadow rules would have decided, and lets them decide nothing', () => {
    const trial = rule({ name: 'trial', decision: 'approve', mode: 'shadow', match: { tool: 'write_file' } });
    const engine = new RuleEngine([trial]);
    expect(engine.decide(write('a'), NOW)).toEqual({ decision: 'none', shadow: [{ rule: trial, decision: 'approve' }] });
    const enforced = rule({ name: 'reject all', decision: 'reject', match: {} });
    expect(new RuleEngine([enforced, trial]).decide(write('a'), NOW)).toMatchObject({ decision: 'reject', shadow: [{ rule: { name: 'trial' } }] });
  });

  it('decides in microseconds at a thousand rules', () => {
    const rules = Array.from({ length: 1000 }, (_, i) =>
      rule({ name: `r${i}`, decision: 'approve', match: { tool: `tool_${i}`, arguments: { path: `dir${i}/*` } } }),
    );
    const engine = new RuleEngine(rules);
    expect(engine.decide({ ...write('dir999/a'), tool: 'tool_999' }, NOW).rule?.name).toBe('r999');
  });
});

describe('validateRule', () => {
  it('refuses a malformed rule, a bad pattern, and a rule that fails its own examples, naming where', () => {
    expect(validateRule({ name: '', decision: 'maybe', match: {} })).toMatchObject({
      ok: false,
      issues: expect.arrayContaining([expect.objectContaining({ path: ['name'] }), expect.objectContaining({ path: ['decision'] })]),
    });
    expect(validateRule({ name: 'bad', decision: 'approve', match: { tool: '/(/' } })).toMatchObject({
      ok: false,
      issues: [{ path: expect.arrayContaining(['match']) }],
    });
    const examples = { match: [write('notes/a.md')], not_match: [write('notes/b.md'), write('src/c.ts')] };
    expect(validateRule({ name: 'notes', decision: 'approve', match: { arguments: { path: 'notes/*' } }, examples })).toEqual({
      ok: false,
      issues: [{ path: ['examples', 'not_match', 0], message: 'the rule matches this example' }],
    });
    expect(validateRule({ name: 'notes', decision: 'approve', match: { arguments: { path: 'notes/a*' } }, examples })).toMatchObject({ ok: true });
  });
});
