import { describe, expect, it } from 'vitest';
import type { ProposalFacts } from './approval-rule';
import { RuleEngine } from './rule-engine';
import { describeMatch, narrowestMatch, scopeOf, shapeKey } from './rule-shape';
import { approvalRuleInputSchema } from './approval-rule';

const write = (args: Record<string, unknown>, proposer = 'scribe'): ProposalFacts => ({
  proposer,
  targets: ['files'],
  method: 'tools/call',
  tool: 'write_file',
  arguments: args,
});
const LONG = 'x'.repeat(500);

describe('narrowestMatch', () => {
  it('pins one proposal to its proposer, target, tool and the folder of its path, leaving its contents free', () => {
    const match = narrowestMatch([write({ path: 'notes/2026-11-25.md', content: `# Notes\n${LONG}`, mode: 'overwrite' })]);
    expect(match).toEqual({ proposer: 'scribe', target: 'files', method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/*', mode: 'overwrite' } });
    expect(describeMatch(match)).toBe('scribe → files · write_file · path notes/* · mode overwrite');
  });

  it('covers several proposals with the folder they share, one-of lists of a few values, and nothing for what varies freely', () => {
    const match = narrowestMatch([
      write({ path: 'notes/a.md', dryRun: true, tag: 'x', n: 1 }),
      write({ path: 'notes/archive/b.md', dryRun: false, tag: 'y', n: 2 }),
      write({ path: 'notes/c.md', dryRun: true, tag: 'x', n: 3, only: 'here' }),
    ]);
    expect(match.arguments).toEqual({ path: 'notes/*', dryRun: [true, false], tag: ['x', 'y'] }); // n never repeats: free
    expect(narrowestMatch([write({ path: 'a.md' }), write({ path: 'b.md' })]).arguments).toBeUndefined();
    expect(narrowestMatch([write({ path: 'a.md' })]).arguments).toEqual({ path: 'a.md' });
  });

  it('never reads a value’s own * or leading ! as a pattern', () => {
    expect(narrowestMatch([write({ path: 'notes/*.md', tag: '!important' })]).arguments).toBeUndefined();
  });

  it('matches what it was made from, and no other proposer or folder', () => {
    const proposals = [write({ path: 'notes/a.md', content: LONG }), write({ path: 'notes/b.md', content: 'short' })];
    const rule = {
      ...approvalRuleInputSchema.parse({ name: 'learnt', decision: 'approve', match: narrowestMatch(proposals) }),
      id: 'r',
      version: 1,
      created_by: 'h',
      created_at: '',
    };
    const engine = new RuleEngine([rule]);
    for (const p of proposals) expect(engine.decide(p, 0).decision).toBe('approve');
    expect(engine.decide(write({ path: 'notes/new.md', content: 'y' }), 0).decision).toBe('approve');
    expect(engine.decide(write({ path: 'src/app.ts', content: 'y' }), 0).decision).toBe('none');
    expect(engine.decide(write({ path: 'notes/a.md', content: 'y' }, 'auditor'), 0).decision).toBe('none');
  });

  it('groups proposals by proposer, targets (in any order), method and tool', () => {
    expect(shapeKey({ ...write({}), targets: ['b', 'a'] })).toBe(shapeKey({ ...write({ other: 1 }), targets: ['a', 'b'] }));
    expect(shapeKey(write({}))).not.toBe(shapeKey(write({}, 'auditor')));
  });
});

describe('scopeOf', () => {
  it('says line by line what a rule made from a proposal covers: who, to whom, the tool, each argument pinned or free', () => {
    const args = { path: 'notes/2026-11-25.md', content: `# Notes\n${LONG}`, mode: 'overwrite' };
    expect(scopeOf(narrowestMatch([write(args)]), args)).toEqual([
      { field: 'from', pattern: 'scribe', words: 'exactly scribe' },
      { field: 'to', pattern: 'files', words: 'exactly files' },
      { field: 'tool', pattern: 'write_file', words: 'exactly write_file' },
      { field: 'path', pattern: 'notes/*', words: 'anything under notes/' },
      { field: 'content', words: 'any value' },
      { field: 'mode', pattern: 'overwrite', words: 'exactly overwrite' },
    ]);
    expect(scopeOf({ tool: ['a', 'b'], arguments: { n: [1, 2], q: '!x*' } }, undefined)).toEqual([
      { field: 'from', words: 'anyone' },
      { field: 'to', words: 'anyone' },
      { field: 'tool', pattern: '["a","b"]', words: 'one of a, b' },
      { field: 'n', pattern: '[1,2]', words: 'one of 1, 2' },
      { field: 'q', pattern: '!x*', words: 'matching !x*' },
    ]);
  });
});
