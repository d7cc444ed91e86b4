import type { Proposal } from '../sdk/model/proposals-slice';

/** A decision a person made on a proposal (not a rule, not the proposer itself). */
export interface HumanDecision {
  proposal: Proposal;
  decision: 'approve' | 'reject';
  by: string;
  at: number;
  /** For a reject: its reason code. */
  reason?: string;
}

/**
 * What people decided on `proposals`: the first fulfilment or rejection of each, when no rule made it. A rule's
 * decisions are not a person's, and learning from them would only teach the rules what they already say.
 */
export function humanDecisions(proposals: Iterable<Proposal>): HumanDecision[] {
  const out: HumanDecision[] = [];
  for (const proposal of proposals) {
    const fulfilment = proposal.fulfilment;
    const rejection = proposal.rejections[0];
    if (fulfilment && !fulfilment.rule && fulfilment.by !== proposal.proposer && (!rejection || fulfilment.at <= rejection.at)) {
      out.push({ proposal, decision: 'approve', by: fulfilment.by, at: fulfilment.at });
    } else if (rejection && !rejection.rule && !fulfilment) {
      out.push({ proposal, decision: 'reject', by: rejection.by, at: rejection.at, ...(rejection.reason !== undefined && { reason: rejection.reason }) });
    }
  }
  return out;
}
