import { z } from 'zod';

// What automatic supervision puts on the wire: the rule behind a decision, and escalations.

/**
 * Where an automatic decision names the approval rule that made it: `params._meta["mew/rule"]` of the fulfilling
 * `mcp/request` (MCP reserves `_meta` for such metadata, so a tool server ignores it) and `rule` of an `mcp/reject`.
 */
export const RULE_META_KEY = 'mew/rule';

/** An approval rule as a decision names it. */
export const ruleRefSchema = z.object({ id: z.string().min(1), version: z.number().int().positive(), name: z.string() });

export type RuleRef = z.infer<typeof ruleRefSchema>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rule a fulfilment's params name, if they name a well-formed one. */
export function ruleRefOfParams(params: unknown): RuleRef | undefined {
  const meta = isObject(params) && isObject(params._meta) ? params._meta[RULE_META_KEY] : undefined;
  const parsed = ruleRefSchema.safeParse(meta);
  return parsed.success ? parsed.data : undefined;
}

/** The rule a reject's payload names, if it names a well-formed one. */
export function ruleRefOfReject(payload: unknown): RuleRef | undefined {
  const parsed = ruleRefSchema.safeParse(isObject(payload) ? payload.rule : undefined);
  return parsed.success ? parsed.data : undefined;
}

/** `params` with the rule named in `_meta` (other `_meta` keys kept). */
export function withRuleRef(params: unknown, rule: RuleRef): Record<string, unknown> {
  const base = isObject(params) ? params : {};
  return { ...base, _meta: { ...(isObject(base._meta) ? base._meta : {}), [RULE_META_KEY]: rule } };
}

/** `params` without the rule's name, for comparing what ran with what was proposed. */
export function withoutRuleRef(params: unknown): unknown {
  if (!isObject(params) || !isObject(params._meta) || !(RULE_META_KEY in params._meta)) return params;
  const { [RULE_META_KEY]: _rule, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/**
 * An escalation: a `chat` correlated to a pending proposal whose payload carries `escalation`, sent when nobody
 * decided it within its timeout. Supervisors' screens mark the proposal urgent; the proposer learns it waits.
 */
export const escalationSchema = z.object({ waited_seconds: z.number().nonnegative() });

export type Escalation = z.infer<typeof escalationSchema>;

/** The escalation a chat's payload carries, if any. */
export function escalationOf(payload: unknown): Escalation | undefined {
  const parsed = escalationSchema.safeParse(isObject(payload) ? payload.escalation : undefined);
  return parsed.success ? parsed.data : undefined;
}
