import type { ApprovalRuleInput } from './approval-rule';
import type { HumanDecision } from './human-decisions';
import { isDangerousRisk } from '../protocol';
import { describeMatch, narrowestMatch, proposalFacts, shapeKey } from './rule-shape';

/** How many times the same decision on one shape makes a suggestion. */
export const DEFAULT_SUGGESTION_THRESHOLD = 3;

/** A rule the control room offers after people decided the same way several times. */
export interface RuleSuggestion {
  /** Stable per shape and decision: what a dismissal remembers. */
  key: string;
  rule: ApprovalRuleInput;
  /** The decisions it is based on, newest first. */
  basedOn: HumanDecision[];
}

export interface SuggestOptions {
  threshold?: number;
  /** Keys the person dismissed. */
  dismissed?: ReadonlySet<string>;
  /** Whether a rule already decides this shape (then nothing is suggested). */
  covered?(decision: HumanDecision): boolean;
}

/**
 * Suggests the narrowest rule for each shape of proposal (proposer, target, method, tool) on which people made the
 * same decision at least `threshold` times and never the other one, unless a rule already covers it or the person
 * dismissed it. Suggested rules start in shadow mode: they count what they would do until someone enforces them.
 */
export function suggestRules(decisions: readonly HumanDecision[], options: SuggestOptions = {}): RuleSuggestion[] {
  const { threshold = DEFAULT_SUGGESTION_THRESHOLD, dismissed = new Set(), covered = () => false } = options;
  const byShape = new Map<string, HumanDecision[]>();
  for (const decision of decisions) {
    const key = shapeKey(proposalFacts(decision.proposal));
    const list = byShape.get(key);
    if (list) list.push(decision);
    else byShape.set(key, [decision]);
  }
  const suggestions: RuleSuggestion[] = [];
  for (const [shape, list] of byShape) {
    const [first] = list;
    if (list.length < threshold || list.some((d) => d.decision !== first.decision)) continue;
    const key = `${first.decision}:${shape}`;
    if (dismissed.has(key) || covered(list[list.length - 1])) continue;
    const match = narrowestMatch(list.map((d) => proposalFacts(d.proposal)));
    const reasons = list.map((d) => d.reason).filter((r): r is string => r !== undefined);
    const rule: ApprovalRuleInput = {
      name: `${first.decision === 'approve' ? 'Approve' : 'Reject'} ${describeMatch(match)}`.slice(0, 120),
      decision: first.decision,
      match,
      mode: 'shadow',
      ...(first.decision === 'reject' && { reason: reasons[0] ?? 'policy' }),
      ...(first.decision === 'approve' && list.some((d) => isDangerous(d)) && { allow_dangerous: true }),
    };
    suggestions.push({ key, rule, basedOn: [...list].sort((a, b) => b.at - a.at) });
  }
  return suggestions;
}

const isDangerous = (d: HumanDecision) => isDangerousRisk(d.proposal.risk);
