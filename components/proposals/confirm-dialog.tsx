'use client';

import { ConfirmDialog as SharedConfirmDialog } from '@/components/ui/confirm-dialog';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { RiskBadge } from './risk-badge';

/**
 * The extra step before running tools that are dangerous or ask for confirmation (MGP). Approving by a rule has its
 * own dialog, which shows the rule's scope and the risk (`ApproveByRuleDialog`).
 */
export function ConfirmDialog({
  proposals,
  onCancel,
  onConfirm,
}: {
  proposals: readonly Proposal[];
  /** What confirming does: run them once (the only confirmation left here). */
  andThen?: 'approve';
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const one = proposals.length === 1 ? proposals[0] : undefined;
  const name = one ? (one.toolName ?? one.method) : `${proposals.length} proposals`;
  return (
    <SharedConfirmDialog
      open
      closeButton={false}
      title={`Run ${name}?`}
      description={`${one ? 'This tool is' : 'These tools are'} marked dangerous or ask${one ? 's' : ''} for confirmation before each run.`}
      confirmLabel={one ? `Run ${name}` : `Run ${proposals.length}`}
      onConfirm={onConfirm}
      onCancel={onCancel}
      classNames={{ cancel: `${buttonClass.base} ${buttonClass.neutral}`, confirm: `${buttonClass.base} ${buttonClass.danger}` }}
    >
      <ul className="flex flex-col gap-1.5 text-sm">
        {proposals.map((p) => (
          <li key={p.id} className="flex flex-wrap items-center gap-2 rounded border border-slate-800 px-2 py-1.5">
            <span className="font-mono">{p.toolName ?? p.method}</span>
            <span className="text-slate-400">
              {p.proposer} → {p.target ?? 'anyone'}
            </span>
            <RiskBadge risk={p.risk} />
          </li>
        ))}
      </ul>
    </SharedConfirmDialog>
  );
}
