import { describe, expect, it } from 'vitest';
import { validateRule } from '@/lib/rules/rule-engine';
import {
  ARGUMENTS_HINT,
  EMPTY_FORM,
  fieldLabel,
  formOf,
  MATCH_FIELDS,
  MATCH_HINTS,
  parsePattern,
  ruleOfForm,
  secretFieldsOf,
  showSecrets,
  unmaskedRule,
  type RuleForm,
} from './rule-form';

const form = (fields: Partial<RuleForm>): RuleForm => ({ ...EMPTY_FORM, name: 'a rule', ...fields });

/** The rule the editor would save, or what it says is wrong. */
function save(fields: Partial<RuleForm>) {
  const read = ruleOfForm(form(fields));
  if ('field' in read) return read;
  return validateRule(read.rule);
}

describe('the rule form', () => {
  it('accepts every hint it shows as it stands: the placeholders and the examples of the legend', () => {
    for (const field of MATCH_FIELDS) expect(save({ [field]: MATCH_HINTS[field] })).toMatchObject({ ok: true });
    expect(save({ arguments: ARGUMENTS_HINT })).toMatchObject({ ok: true, rule: { match: { arguments: { path: 'notes/*' } } } });
    for (const example of ['agent-*', '!auditor', '[write_file, move_file]', '/^read_/']) {
      expect(save({ proposer: example, tool: example })).toMatchObject({ ok: true });
    }
  });

  it('reads a list as one of its values, in bare words or JSON', () => {
    expect(parsePattern('[write_file, move_file]')).toEqual(['write_file', 'move_file']);
    expect(parsePattern(' [ "a", \'b\' , c ] ')).toEqual(['a', 'b', 'c']);
    expect(parsePattern('["a","b"]')).toEqual(['a', 'b']);
    expect(parsePattern('[1, 2]')).toEqual([1, 2]);
    expect(parsePattern('write_*')).toBe('write_*');
    expect(parsePattern('  ')).toBeUndefined();
  });

  it('says what is wrong in words about the field, never a parser’s "Unexpected token"', () => {
    expect(save({ tool: '[write_file, ]' })).toEqual({ field: 'tool', message: 'a list takes values separated by commas, e.g. [write_file, move_file]' });
    expect(save({ tool: '[write_file' })).toEqual({ field: 'tool', message: 'a list needs its closing ], e.g. [write_file, move_file]' });
    const args = save({ arguments: '{"path": "drafts/*"' });
    expect(args).toMatchObject({ field: 'arguments', message: expect.stringMatching(/^write them as a JSON object, e\.g\. \{"path": "notes\/\*"\}/) });
  });

  it('names a problem by the label the editor shows', () => {
    expect(fieldLabel(['match', 'tool'])).toBe('tool');
    expect(fieldLabel(['match', 'arguments', 'path'])).toBe('arguments › path');
    expect(fieldLabel(['expires_at'])).toBe('Expires');
    expect(fieldLabel(['max_per_hour'])).toBe('At most per hour');
    expect(fieldLabel(['timeout', 'after_seconds'])).toBe('If nobody decides within');
    expect(fieldLabel(['examples', 'match', 0])).toBe('Matches');
    expect(fieldLabel([])).toBe('The rule');
  });
});

describe('a rule form holding a secret', () => {
  const token = `ghp_${'K7m2'.repeat(8)}wxyz`;
  const rule = {
    name: 'deploy',
    decision: 'approve' as const,
    mode: 'enforce' as const,
    match: { proposer: 'agent', tool: 'deploy', arguments: { repo: 'acme/*', token } },
    examples: {
      match: [{ proposer: 'agent', targets: ['tools'], method: 'tools/call', tool: 'deploy', arguments: { repo: 'acme/site', token } }],
      not_match: [],
    },
  };

  it('shows the fields that hold it masked, and whole once revealed, leaving edited fields as written', () => {
    const secrets = secretFieldsOf(rule);
    expect(Object.keys(secrets)).toEqual(['arguments']);
    const masked = showSecrets(formOf(rule), secrets, false);
    expect(masked.arguments).toContain('"token": "…wxyz"');
    expect(masked.arguments).not.toContain(token);
    expect(masked.tool).toBe('deploy');
    expect(showSecrets(masked, secrets, true).arguments).toContain(token);
    const edited = { ...masked, arguments: masked.arguments.replace('acme/*', 'acme/site/*') };
    expect(showSecrets(edited, secrets, true)).toBe(edited);
    expect(secretFieldsOf({ ...rule, match: { tool: 'deploy' } })).toEqual({});
  });

  it('saves the real value of a secret left masked, so the rule still matches the proposal it was made from', () => {
    const masked = showSecrets(formOf(rule), secretFieldsOf(rule), false);
    const edited = { ...masked, arguments: masked.arguments.replace('acme/*', 'acme/s*') };
    const read = ruleOfForm(edited);
    if (!('rule' in read)) throw new Error(read.message);
    const { rule: saved, unresolved } = unmaskedRule(read.rule, rule);
    expect(unresolved).toEqual([]);
    expect(saved.match.arguments).toEqual({ repo: 'acme/s*', token });
    expect(validateRule(saved)).toMatchObject({ ok: true });
    // Masked, it would no longer match the call.
    expect(validateRule(read.rule)).toMatchObject({ ok: false });
  });
});
