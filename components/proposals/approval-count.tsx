'use client';

import type { ProposalApprovals } from '@/lib/store';

/**
 * How far a proposal whose tool needs several approvers is ("1 of 2 approvals: alice"), as the gateway counted it:
 * distinct participants, never the proposer, for the same call. Shown to everyone, proposer included.
 */
export function ApprovalCount({ approvals }: { approvals: ProposalApprovals }) {
  const { required, by, complete, edited } = approvals;
  const names = by.map((a) => a.by).join(', ');
  const tone = complete ? 'bg-emerald-900/60 text-emerald-100' : 'bg-violet-900/70 text-violet-100';
  return (
    <span
      role="status"
      data-testid="approval-count"
      className={`rounded px-1.5 py-px font-semibold ${tone}`}
      title={`This tool needs ${required} different approvers for the same call; the proposer never counts.`}
    >
      {by.length} of {required} approvals{names ? `: ${names}` : ''}
      {edited ? ' (of an edited call)' : ''}
    </span>
  );
}
