import type { ApprovalRuleInput, RuleDecision, RuleMode, TimeoutPolicy } from '@/lib/rules/approval-rule';
import { maskValue } from '@/lib/secrets/secret-masking';
import { unmaskEdited } from '@/lib/secrets/unmask-edited';

/** The match fields a rule editor shows as one-line patterns. */
export const MATCH_FIELDS = ['proposer', 'target', 'method', 'tool'] as const;

// Each hint is an input the editor accepts as it stands (rule-form.test.ts checks them all).
export const MATCH_HINTS: Record<(typeof MATCH_FIELDS)[number], string> = {
  proposer: 'agent-*',
  target: 'files',
  method: 'tools/call',
  tool: '[write_file, move_file]',
};
export const ARGUMENTS_HINT = '{"path": "notes/*"}';

/** The fields of a rule's input as the editor labels them, for problems the server or the engine names by path. */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  decision: 'Decision',
  mode: 'Mode',
  reason: 'Reason the proposer is told',
  expires_at: 'Expires',
  max_per_hour: 'At most per hour',
  timeout: 'If nobody decides within',
  allow_dangerous: 'Also approve dangerous tools',
  examples: 'Matches',
};

/** Where a problem is, in the words of the field the person sees: `tool`, `arguments › path`, `Expires`. */
export function fieldLabel(path: readonly (string | number)[]): string {
  const [first, ...rest] = path;
  if (first === 'match') return rest.length === 0 ? 'Matches' : rest.map(String).join(' › ');
  return FIELD_LABELS[String(first)] ?? (path.join('.') || 'The rule');
}

/** The rule editor's fields, as typed (patterns as text, numbers as strings), before they become a rule. */
export interface RuleForm {
  name: string;
  decision: RuleDecision;
  mode: RuleMode;
  proposer: string;
  target: string;
  method: string;
  tool: string;
  /** JSON: an object of argument patterns, or empty. */
  arguments: string;
  reason: string;
  /** `datetime-local` (the browser's time zone), or empty. */
  expiresAt: string;
  maxPerHour: string;
  allowDangerous: boolean;
  /** For ask rules: seconds, or empty for none. */
  timeoutSeconds: string;
  timeoutAction: 'reject' | 'escalate';
  /** Kept as they were (not edited here). */
  keep: Pick<ApprovalRuleInput, 'examples' | 'for_session_of'>;
}

/** A pattern as one line: strings as they are, anything else (a one-of list, an object) as JSON. */
export function patternText(pattern: unknown): string {
  return pattern === undefined ? '' : typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
}

/** Why a field's text is not a pattern, in the words of the field the person sees. */
export class PatternTextError extends Error {}

/**
 * One line back into a pattern: empty is none; a list `[a, b]` (JSON, or bare words separated by commas) is one of
 * them; an object `{…}` or a quoted string is JSON; anything else is the text itself (a literal, a glob such as
 * `agent-*`, a negation `!auditor`, a `/regex/`).
 */
export function parsePattern(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('[')) {
    if (!trimmed.endsWith(']')) throw new PatternTextError('a list needs its closing ], e.g. [write_file, move_file]');
    try {
      return JSON.parse(trimmed);
    } catch {
      const items = trimmed
        .slice(1, -1)
        .split(',')
        .map((item) => item.trim().replace(/^(["'])(.*)\1$/, '$2'));
      if (items.some((item) => item === '')) throw new PatternTextError('a list takes values separated by commas, e.g. [write_file, move_file]');
      return items;
    }
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('"')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new PatternTextError(`${trimmed.startsWith('{') ? 'an object' : 'a quoted value'} must be JSON: ${(error as Error).message}`);
    }
  }
  return trimmed;
}

/** The arguments field: empty, or JSON (an object of argument patterns, as a rule made from a proposal has). */
function parseArguments(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    throw new PatternTextError(`write them as a JSON object, e.g. {"path": "notes/*"} (${(error as Error).message})`);
  }
}

const localDateTime = (iso: string) => {
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function formOf(rule: ApprovalRuleInput): RuleForm {
  return {
    name: rule.name,
    decision: rule.decision,
    mode: rule.mode ?? 'enforce',
    proposer: patternText(rule.match.proposer),
    target: patternText(rule.match.target),
    method: patternText(rule.match.method),
    tool: patternText(rule.match.tool),
    arguments: rule.match.arguments === undefined ? '' : JSON.stringify(rule.match.arguments, null, 2),
    reason: rule.reason ?? '',
    expiresAt: rule.expires_at ? localDateTime(rule.expires_at) : '',
    maxPerHour: rule.max_per_hour === undefined ? '' : String(rule.max_per_hour),
    allowDangerous: rule.allow_dangerous ?? false,
    timeoutSeconds: rule.timeout && rule.timeout.action !== 'none' ? String(rule.timeout.after_seconds) : '',
    timeoutAction: rule.timeout?.action === 'reject' ? 'reject' : 'escalate',
    keep: { ...(rule.examples && { examples: rule.examples }), ...(rule.for_session_of && { for_session_of: rule.for_session_of }) },
  };
}

export const EMPTY_FORM: RuleForm = formOf({ name: '', decision: 'approve', match: {}, mode: 'shadow' });

/**
 * The rule a form says, or the field that cannot be read (a list or object that does not parse). Whether the rule
 * is valid is the rule schema's and the engine's to say (`validateRule`), as the server will.
 */
export function ruleOfForm(form: RuleForm): { rule: ApprovalRuleInput } | { field: string; message: string } {
  const match: Record<string, unknown> = {};
  for (const field of [...MATCH_FIELDS, 'arguments'] as const) {
    try {
      const pattern = field === 'arguments' ? parseArguments(form[field]) : parsePattern(form[field]);
      if (pattern !== undefined) match[field] = pattern;
    } catch (error) {
      if (!(error instanceof PatternTextError)) throw error;
      return { field, message: error.message };
    }
  }
  const timeout: TimeoutPolicy['default'] = form.timeoutSeconds.trim() ? { after_seconds: Number(form.timeoutSeconds), action: form.timeoutAction } : undefined;
  const rule: ApprovalRuleInput = {
    name: form.name,
    decision: form.decision,
    mode: form.mode,
    match,
    ...(form.decision === 'reject' && form.reason.trim() && { reason: form.reason.trim() }),
    ...(form.expiresAt && { expires_at: new Date(form.expiresAt).toISOString() }),
    ...(form.maxPerHour.trim() && { max_per_hour: Number(form.maxPerHour) }),
    ...(form.decision === 'approve' && form.allowDangerous && { allow_dangerous: true }),
    ...(form.decision === 'ask' && timeout && { timeout }),
    ...form.keep,
  };
  return { rule };
}

/** The editor's fields that hold a rule's match as text. */
export const MATCH_TEXT_FIELDS = [...MATCH_FIELDS, 'arguments'] as const;
export type MatchTextField = (typeof MATCH_TEXT_FIELDS)[number];

/** The match fields of a rule that hold a secret: the text each shows masked, and whole. */
export type SecretFields = Partial<Record<MatchTextField, { masked: string; whole: string }>>;

/**
 * The match fields of `rule` that hold a secret (lib/secrets `maskValue`: a recognised format anywhere, the whole
 * value of a secret-named argument such as `token`), each as the editor shows it masked and whole. Empty when none.
 */
export function secretFieldsOf(rule: ApprovalRuleInput): SecretFields {
  const shown = maskValue(rule.match);
  if (shown === rule.match) return {};
  const whole = formOf(rule);
  const masked = formOf({ ...rule, match: shown });
  const fields: SecretFields = {};
  for (const field of MATCH_TEXT_FIELDS) if (masked[field] !== whole[field]) fields[field] = { masked: masked[field], whole: whole[field] };
  return fields;
}

/**
 * The form with its secret fields shown whole or masked: a field still showing the other form (untouched) switches;
 * one the person changed stays as they wrote it.
 */
export function showSecrets(form: RuleForm, secrets: SecretFields, whole: boolean): RuleForm {
  let out = form;
  for (const [field, text] of Object.entries(secrets) as [MatchTextField, { masked: string; whole: string }][]) {
    const from = whole ? text.masked : text.whole;
    if (out[field] === from) out = { ...out, [field]: whole ? text.whole : text.masked };
  }
  return out;
}

/**
 * The rule a form says, with the secrets of `original`'s match that it left masked put back (lib/secrets
 * `unmaskEdited`): a masked value left as it is saves the real one, so the rule still matches the calls. `unresolved`
 * lists masked forms that stand for several secrets (the rule is not saved with them).
 */
export function unmaskedRule(rule: ApprovalRuleInput, original: ApprovalRuleInput): { rule: ApprovalRuleInput; unresolved: string[] } {
  const { value, unresolved } = unmaskEdited(rule.match, original.match);
  return { rule: { ...rule, match: value }, unresolved };
}
