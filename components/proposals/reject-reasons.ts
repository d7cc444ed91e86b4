/** Reject reason codes an approver can pick (spec §3.3.3; `no_longer_needed` is the proposer's own, for withdraw). */
export const REJECT_REASONS = [
  { code: 'disagree', description: "Don't agree with the proposed action" },
  { code: 'inappropriate', description: 'Not suitable for the current context' },
  { code: 'unsafe', description: 'Could cause harm or unintended consequences' },
  { code: 'busy', description: 'Currently handling other work' },
  { code: 'incapable', description: "Don't have the required tools or access" },
  { code: 'policy', description: 'Violates security or operational policy' },
  { code: 'duplicate', description: 'Already being handled by another participant' },
  { code: 'invalid', description: 'Proposal is malformed or impossible' },
  { code: 'timeout', description: 'Too old or expired' },
  { code: 'resource_limit', description: 'Would exceed resource constraints' },
  { code: 'other', description: 'Reason not covered above' },
] as const;

export type RejectReason = (typeof REJECT_REASONS)[number]['code'];
