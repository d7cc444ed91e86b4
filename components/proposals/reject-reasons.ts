/**
 * Reject reason codes (spec §3.3.3) in plain words. The code travels in `mcp/reject` (agents act on it); people read
 * the label. `no_longer_needed` is the proposer's own, for withdraw.
 */
export const REASON_WORDS: Record<string, { label: string; description: string }> = {
  disagree: { label: 'I disagree', description: 'I don’t agree with what it wants to do' },
  unsafe: { label: 'Unsafe', description: 'It could cause harm or unintended consequences' },
  policy: { label: 'Against the rules', description: 'It breaks a security or operational policy' },
  inappropriate: { label: 'Not right now', description: 'It does not fit the current situation' },
  duplicate: { label: 'Already handled', description: 'Someone else is already doing this' },
  invalid: { label: 'Won’t work', description: 'The request is malformed or impossible' },
  resource_limit: { label: 'Too costly', description: 'It would use more resources than allowed' },
  other: { label: 'Other', description: 'Say why in the explanation' },
  busy: { label: 'Busy', description: 'The decider is handling other work' },
  incapable: { label: 'Cannot do it', description: 'The decider lacks the tools or access' },
  timeout: { label: 'Too late', description: 'Nobody decided in time' },
  no_longer_needed: { label: 'No longer needed', description: 'The proposer does not need it any more' },
};

/**
 * The reasons a person picks from when rejecting, in the order of their number keys (1–8). `busy`, `incapable` and
 * `timeout` describe a participant's own situation, not an approver's judgement, and are left to agents and rules.
 */
export const REJECT_REASONS = ['disagree', 'unsafe', 'policy', 'inappropriate', 'duplicate', 'invalid', 'resource_limit', 'other'] as const;

export type RejectReason = (typeof REJECT_REASONS)[number];

/** A reason code in plain words (unknown codes, which other participants may send, as they are). */
export function reasonLabel(code: string | undefined): string {
  if (code === undefined) return 'no reason given';
  return REASON_WORDS[code]?.label ?? code;
}
