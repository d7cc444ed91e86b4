import type { ApprovalRuleInput, RuleDecision, RuleMode, TimeoutPolicy } from '@/lib/rules/approval-rule';

/** The match fields a rule editor shows as one-line patterns. */
export const MATCH_FIELDS = ['proposer', 'target', 'method', 'tool'] as const;

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

/** One line back into a pattern: empty is none; JSON when it starts like a list, object or quoted string. */
function parsePattern(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^[[{"]/.test(trimmed) ? JSON.parse(trimmed) : trimmed;
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
 * The rule a form says, or the field that cannot be read (bad JSON). Whether the rule is valid is the rule
 * schema's and the engine's to say (`validateRule`), as the server will.
 */
export function ruleOfForm(form: RuleForm): { rule: ApprovalRuleInput } | { field: string; message: string } {
  const match: Record<string, unknown> = {};
  for (const field of [...MATCH_FIELDS, 'arguments'] as const) {
    try {
      const pattern = parsePattern(form[field]);
      if (pattern !== undefined) match[field] = pattern;
    } catch (error) {
      return { field, message: `not JSON: ${(error as Error).message}` };
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
