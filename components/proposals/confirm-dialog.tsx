'use client';

import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { ModalDialog } from './modal-dialog';
import { RiskBadge } from './risk-badge';

/**
 * The extra step before running tools that are dangerous or ask for confirmation (MGP). Focus starts on Cancel,
 * the least destructive choice.
 */
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
    <ModalDialog
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
      onClose={onCancel}
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
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" data-autofocus className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={`${buttonClass.base} ${grant ? buttonClass.grant : buttonClass.danger}`} onClick={onConfirm}>
          {grant ? `Approve and always allow` : one ? `Run ${name}` : `Run ${proposals.length}`}
        </button>
      </div>
    </ModalDialog>
  );
}
