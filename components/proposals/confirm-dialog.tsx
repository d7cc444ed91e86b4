'use client';

import { ConfirmDialog as SharedConfirmDialog } from '@/components/ui/confirm-dialog';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { RiskBadge } from './risk-badge';

/** The extra step before running tools that are dangerous or ask for confirmation (MGP). */
export function ConfirmDialog({
  proposals,
  grant = false,
  onCancel,
  onConfirm,
}: {
  proposals: readonly Proposal[];
  /** Confirming an "always allow" (approve now and grant for later) rather than one run. */
  grant?: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const one = proposals.length === 1 ? proposals[0] : undefined;
  const name = one ? (one.toolName ?? one.method) : `${proposals.length} proposals`;
  return (
    <SharedConfirmDialog
      open
      closeButton={false}
      title={grant ? `Always allow ${name}?` : `Run ${name}?`}
      description={
        grant ? (
          <>
            <span className="font-mono">{one?.proposer}</span> will be able to call <span className="font-mono">{name}</span> directly from now on, without
            asking, although the tool is marked risky. You can revoke it later.
          </>
        ) : (
          'These tools are marked dangerous or ask for confirmation before each run.'
        )
      }
      confirmLabel={grant ? `Approve and always allow` : one ? `Run ${name}` : `Run ${proposals.length}`}
      onConfirm={onConfirm}
      onCancel={onCancel}
      classNames={{ cancel: `${buttonClass.base} ${buttonClass.neutral}`, confirm: `${buttonClass.base} ${grant ? buttonClass.grant : buttonClass.danger}` }}
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
