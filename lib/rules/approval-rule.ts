import { z } from 'zod';

/** What a rule does with a proposal it matches. Precedence when several match: reject > ask > approve. */
export const RULE_DECISIONS = ['reject', 'ask', 'approve'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

/**
 * `enforce` decides; `shadow` decides nothing and counts what it would have decided (to try a rule first);
 * `disabled` is kept on file and does nothing.
 */
export const RULE_MODES = ['enforce', 'shadow', 'disabled'] as const;
export type RuleMode = (typeof RULE_MODES)[number];

// A pattern value of lib/capabilities (globs, `!` negation, /regex/, arrays as one-of, objects, JSONPath keys):
// checked for real when the rule is compiled, so only its JSON shape is checked here.
const pattern = z.unknown().refine((value) => value !== undefined, 'a pattern is required');

/** The facts of a proposal a rule looks at: who proposed what to whom. */
export const proposalFactsSchema = z.strictObject({
  proposer: z.string().min(1),
  /** The proposal's `to` (a rule's `target` matches when any of them does). */
  targets: z.array(z.string()).default([]),
  method: z.string().min(1),
  /** `params.name` of a `tools/call`. */
  tool: z.string().optional(),
  /** `params.arguments` of a `tools/call`. */
  arguments: z.unknown().optional(),
});

export type ProposalFacts = z.input<typeof proposalFactsSchema>;

/** What happens to a proposal nobody decides in time: nothing, rejected with reason `timeout`, or escalated (urgent). */
export const TIMEOUT_ACTIONS = ['none', 'reject', 'escalate'] as const;

export const proposalTimeoutSchema = z.strictObject({
  after_seconds: z
    .number()
    .positive()
    .max(7 * 24 * 3600),
  action: z.enum(TIMEOUT_ACTIONS),
});

export type ProposalTimeout = z.infer<typeof proposalTimeoutSchema>;

/** Timeouts by the tool's MGP risk level (`default`: any other, or none declared). No entry: nothing happens. */
export const timeoutPolicySchema = z.strictObject({
  safe: proposalTimeoutSchema.optional(),
  moderate: proposalTimeoutSchema.optional(),
  dangerous: proposalTimeoutSchema.optional(),
  default: proposalTimeoutSchema.optional(),
});

export type TimeoutPolicy = z.infer<typeof timeoutPolicySchema>;

/** A rule as an operator writes it. */
export const approvalRuleInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'a rule needs a name').max(120),
  decision: z.enum(RULE_DECISIONS),
  /** Every field given must match (patterns of lib/capabilities); an empty match matches every proposal. */
  match: z.strictObject({
    proposer: pattern.optional(),
    target: pattern.optional(),
    method: pattern.optional(),
    tool: pattern.optional(),
    arguments: pattern.optional(),
  }),
  mode: z.enum(RULE_MODES).default('enforce'),
  /** For `reject`: what the proposer is told. */
  reason: z.string().max(500).optional(),
  /** After this instant (ISO 8601) the rule matches nothing. */
  expires_at: z.iso.datetime({ offset: true }).optional(),
  /** The rule ends (is deleted) when this participant's session does: it leaves the space, or the server restarts. */
  for_session_of: z.string().min(1).optional(),
  /** At most this many decisions in any hour; past it the rule steps aside (the proposal waits for a human). */
  max_per_hour: z.number().int().positive().optional(),
  /** For `ask` rules: what happens when no one decides in time (instead of the risk level's timeout). */
  timeout: proposalTimeoutSchema.optional(),
  /** Lets an `approve` rule approve tools whose MGP risk is dangerous or asks for confirmation. */
  allow_dangerous: z.boolean().default(false),
  /** Proposals the rule must match, and must not: checked when it is saved, so a rule cannot silently miss. */
  examples: z.strictObject({ match: z.array(proposalFactsSchema).default([]), not_match: z.array(proposalFactsSchema).default([]) }).optional(),
});

export type ApprovalRuleInput = z.input<typeof approvalRuleInputSchema>;

/** A saved rule: its input plus identity and version (an edit is a new version of the same id). */
export type ApprovalRule = z.output<typeof approvalRuleInputSchema> & {
  id: string;
  version: number;
  created_by: string;
  created_at: string;
};

/** A saved rule (as the API lists it, stats and all) as input again: to save an edit of it as its next version. */
export function ruleInputOf(rule: ApprovalRule & Partial<RuleStats>): ApprovalRuleInput {
  const { id: _id, version: _version, created_by: _by, created_at: _at, hits: _h, shadow_hits: _s, shadow_conflicts: _c, last_hit_at: _l, ...input } = rule;
  return approvalRuleInputSchema.parse(input);
}

/** What a rule has done, over all its versions (the rules API lists it with each rule). */
export interface RuleStats {
  /** Proposals it decided. */
  hits: number;
  /** Proposals it would have decided in shadow mode. */
  shadow_hits: number;
  /** Proposals it would have approved in shadow mode that a human then rejected: never promote it unseen. */
  shadow_conflicts: number;
  last_hit_at: string | null;
}

/** What a rule did with one proposal, as recorded. */
export type RuleEventType = 'hit' | 'shadow_hit' | 'shadow_conflict';
