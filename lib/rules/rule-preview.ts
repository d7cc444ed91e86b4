import type { Proposal } from '../sdk/model/proposals-slice';
import type { ApprovalRule } from './approval-rule';
import { humanDecisions } from './human-decisions';
import { RuleEngine } from './rule-engine';
import { proposalFacts } from './rule-shape';

/** What a rule would have done with the space's recent proposals. */
export interface RulePreview {
  /** Proposals replayed. */
  considered: number;
  /** Those it would have decided (its decision). */
  matched: Proposal[];
  /** Those it would have approved or rejected the other way than the person who decided them. */
  disagreements: { proposal: Proposal; human: 'approve' | 'reject'; by: string }[];
}

/**
 * Replays `proposals` through `rule` alone (enforced, whatever its mode; no hourly quota, no expiry: the question is
 * what it matches), with each proposal's tool risk, so the dangerous-tool guard applies as it would.
 */
export function previewRule(rule: ApprovalRule, proposals: readonly Proposal[]): RulePreview {
  const replay = { ...rule, mode: 'enforce' as const, max_per_hour: undefined, expires_at: undefined };
  const engine = new RuleEngine([replay]);
  const matched = proposals.filter((p) => engine.decide(proposalFacts(p), 0, p.risk).decision !== 'none');
  const human = new Map(humanDecisions(proposals).map((d) => [d.proposal.id, d]));
  const disagreements = matched.flatMap((proposal) => {
    const d = human.get(proposal.id);
    return d && rule.decision !== 'ask' && d.decision !== rule.decision ? [{ proposal, human: d.decision, by: d.by }] : [];
  });
  return { considered: proposals.length, matched, disagreements };
}
