import { CapabilityError, compileCapability, type MessageMatcher } from '../capabilities';
import { isDangerousRisk, type ToolSecurity } from '../protocol';
import {
  proposalFactsSchema,
  approvalRuleInputSchema,
  RULE_DECISIONS,
  type ApprovalRule,
  type ApprovalRuleInput,
  type ProposalFacts,
  type RuleDecision,
} from './approval-rule';

/** One hour, the window of `max_per_hour`. */
const QUOTA_WINDOW_MS = 60 * 60 * 1000;

/** What a proposal's MGP risk says about automatic approval (its tool's risk, read by `toolRisk` of lib/protocol). */
export type ProposalRisk = Pick<ToolSecurity, 'risk_level' | 'confirmation_required'>;

/** A tool call whose risk nobody declared, as the rules weigh it. */
const UNDECLARED_TOOL_RISK: ProposalRisk = { risk_level: 'dangerous' };

/**
 * The risk the rules weigh for a proposal: none for methods other than a tool call; its tool's risk (as the one
 * tool-risk function read it: MGP `security`, else MCP annotations); and for a tool whose risk nobody declared (or
 * that could not be listed), dangerous, so no rule approves it unseen unless the rule says `allow_dangerous`.
 */
export function riskForRules(toolName: string | undefined, risk: ProposalRisk | undefined): ProposalRisk | undefined {
  if (toolName === undefined) return undefined;
  return risk?.risk_level !== undefined || risk?.confirmation_required === true ? risk : UNDECLARED_TOOL_RISK;
}

/** What the rules decided about one proposal. */
export interface RuleOutcome {
  /** `none`: no enforcing rule matched (a human decides). */
  decision: RuleDecision | 'none';
  /** The rule that decided. */
  rule?: ApprovalRule;
  /** Shadow rules that would have decided, and what. */
  shadow: { rule: ApprovalRule; decision: RuleDecision }[];
}

/** A problem with a rule, at a path in its input (as the API reports it). */
export interface RuleIssue {
  path: (string | number)[];
  message: string;
}

interface CompiledRule {
  rule: ApprovalRule;
  matches: MessageMatcher;
  /** For a glob `match.tool` (`write_*`): its literal start, which a tool must have before the pattern is tried. */
  toolPrefix?: string;
  expiresAt?: number;
  /** Decisions within the last hour, oldest first. */
  hits: number[];
}

const PRECEDENCE: Record<RuleDecision, number> = Object.fromEntries(RULE_DECISIONS.map((d, i) => [d, RULE_DECISIONS.length - i])) as Record<
  RuleDecision,
  number
>;

/**
 * Compiles a rule's match into one precompiled matcher over a synthetic message: the proposal's facts as the payload
 * of a pseudo-capability, so the whole pattern language of `lib/capabilities` applies (and is validated) once.
 */
function compileMatch(rule: Pick<ApprovalRule, 'match'>): MessageMatcher {
  const { target, ...rest } = rule.match;
  const payload = { ...rest, ...(target !== undefined && { target }) };
  return compileCapability({ kind: 'rule', payload } as never);
}

function factsMessage(facts: ProposalFacts, target: string | undefined) {
  return { kind: 'rule', payload: { proposer: facts.proposer, method: facts.method, tool: facts.tool, arguments: facts.arguments, target } };
}

/** The synthetic messages of a proposal, one per target (a rule's `target` matches when any does). */
function factsMessages(facts: ProposalFacts) {
  const targets = facts.targets ?? [];
  return targets.length === 0 ? [factsMessage(facts, undefined)] : targets.map((target) => factsMessage(facts, target));
}

function matchesFacts(matches: MessageMatcher, facts: ProposalFacts): boolean {
  return factsMessages(facts).some(matches);
}

/** The literal start of a plain glob (`write_*` → `write_`), which every string it matches begins with. */
function globPrefix(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string' || pattern.startsWith('!') || /^\/.+\/[gimsuy]*$/.test(pattern)) return undefined;
  const prefix = pattern.slice(0, pattern.search(/[*?]/));
  return /[*?]/.test(pattern) && prefix !== '' ? prefix : undefined;
}

/** The tool names a `match.tool` pattern can only ever match, when it is literal (no glob, negation or regex). */
function literalTools(pattern: unknown): string[] | undefined {
  const literal = (value: unknown) => typeof value === 'string' && !/[*?]/.test(value) && !value.startsWith('!') && !/^\/.+\/[gimsuy]*$/.test(value);
  if (literal(pattern)) return [pattern as string];
  if (Array.isArray(pattern) && pattern.length > 0 && pattern.every(literal)) return pattern as string[];
  return undefined;
}

/**
 * Checks a rule as written: its shape, its patterns (compiled), and its own examples (each `match` example must
 * match, each `not_match` must not). A rule that fails its examples is refused, since it would match the wrong thing.
 */
export function validateRule(input: unknown): { ok: true; rule: ApprovalRuleInput } | { ok: false; issues: RuleIssue[] } {
  const parsed = approvalRuleInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path as (string | number)[], message: i.message })) };
  let matches: MessageMatcher;
  try {
    matches = compileMatch(parsed.data);
  } catch (error) {
    if (!(error instanceof CapabilityError)) throw error;
    return { ok: false, issues: [{ path: ['match', ...error.path.slice(1)], message: error.message }] };
  }
  const issues: RuleIssue[] = [];
  for (const [key, expected] of [
    ['match', true],
    ['not_match', false],
  ] as const) {
    parsed.data.examples?.[key].forEach((example, index) => {
      if (matchesFacts(matches, proposalFactsSchema.parse(example)) !== expected) {
        issues.push({ path: ['examples', key, index], message: expected ? 'the rule does not match this example' : 'the rule matches this example' });
      }
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, rule: parsed.data };
}

/**
 * The rules of a space, compiled once (on every change of the set), deciding proposals: the strictest enforcing rule
 * that matches wins (reject > ask > approve); expired rules and rules past their hourly quota step aside; an approve
 * rule never approves a dangerous or confirm-first tool unless it says `allow_dangerous`; shadow rules only count.
 *
 * @example
 * const engine = new RuleEngine([{ id: 'r1', version: 1, name: 'reads', decision: 'approve', mode: 'enforce', match: { tool: 'read_*' }, allow_dangerous: false, created_by: 'human', created_at }]);
 * engine.decide({ proposer: 'scribe', targets: ['files'], method: 'tools/call', tool: 'read_file' }, Date.now()).decision; // 'approve'
 */
export class RuleEngine {
  private readonly compiled: CompiledRule[];
  /** Rules naming literal tools, by tool: a proposal is tested only against its tool's rules and the general ones. */
  private readonly byTool = new Map<string, CompiledRule[]>();
  private readonly general: CompiledRule[] = [];

  constructor(rules: readonly ApprovalRule[]) {
    this.compiled = rules
      .filter((rule) => rule.mode !== 'disabled')
      .map((rule) => ({
        rule,
        matches: compileMatch(rule),
        ...(globPrefix(rule.match.tool) && { toolPrefix: globPrefix(rule.match.tool) }),
        ...(rule.expires_at !== undefined && { expiresAt: Date.parse(rule.expires_at) }),
        hits: [],
      }));
    for (const entry of this.compiled) {
      const tools = literalTools(entry.rule.match.tool);
      if (!tools) this.general.push(entry);
      for (const tool of tools ?? []) {
        const list = this.byTool.get(tool);
        if (list) list.push(entry);
        else this.byTool.set(tool, [entry]);
      }
    }
  }

  get size(): number {
    return this.compiled.length;
  }

  /** Decides `facts` at `now`; an enforcing rule that decides uses one of its hourly quota. */
  decide(facts: ProposalFacts, now: number, risk?: ProposalRisk): RuleOutcome {
    const dangerous = isDangerousRisk(risk);
    const messages = factsMessages(facts);
    let winner: CompiledRule | undefined;
    const shadow: RuleOutcome['shadow'] = [];
    const consider = (entry: CompiledRule) => {
      const { rule } = entry;
      if (entry.expiresAt !== undefined && now >= entry.expiresAt) return;
      if (entry.toolPrefix !== undefined && !facts.tool?.startsWith(entry.toolPrefix)) return;
      if (rule.decision === 'approve' && dangerous && !rule.allow_dangerous) return;
      if (winner && PRECEDENCE[rule.decision] <= PRECEDENCE[winner.rule.decision] && rule.mode === 'enforce') return;
      if (!messages.some(entry.matches)) return;
      if (rule.mode === 'shadow') return void shadow.push({ rule, decision: rule.decision });
      if (rule.max_per_hour !== undefined && this.recentHits(entry, now) >= rule.max_per_hour) return;
      winner = entry;
    };
    // Rules naming this tool first (the more specific win ties), then the rest; no copy of either list.
    if (facts.tool !== undefined) for (const entry of this.byTool.get(facts.tool) ?? []) consider(entry);
    for (const entry of this.general) consider(entry);
    if (!winner) return { decision: 'none', shadow };
    winner.hits.push(now);
    return { decision: winner.rule.decision, rule: winner.rule, shadow };
  }

  private recentHits(entry: CompiledRule, now: number): number {
    while (entry.hits.length > 0 && now - entry.hits[0] >= QUOTA_WINDOW_MS) entry.hits.shift();
    return entry.hits.length;
  }
}
