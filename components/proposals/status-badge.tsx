'use client';

import type { ProposalStatus } from '@/lib/store';

const TONES: Record<ProposalStatus, string> = {
  pending: 'bg-sky-900/70 text-sky-200',
  fulfilled: 'bg-indigo-900/70 text-indigo-200',
  completed: 'bg-emerald-900/70 text-emerald-200',
  failed: 'bg-red-900/70 text-red-200',
  rejected: 'bg-red-950 text-red-300 ring-1 ring-red-800',
  withdrawn: 'bg-slate-800 text-slate-300',
  expired: 'bg-amber-950 text-amber-300 ring-1 ring-amber-800',
};

const LABELS: Record<ProposalStatus, string> = {
  pending: 'pending',
  fulfilled: 'approved · running',
  completed: 'completed',
  failed: 'failed',
  rejected: 'rejected',
  withdrawn: 'withdrawn',
  expired: 'expired',
};

/** Where a proposal stands; `expired` has its own look so it is never mistaken for `rejected`. */
export function StatusBadge({ state }: { state: ProposalStatus }) {
  return <span className={`rounded-full px-2 py-px text-[11px] font-medium ${TONES[state]}`}>{LABELS[state]}</span>;
}
