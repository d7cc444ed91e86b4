'use client';

import { ConfirmDialog as SharedConfirmDialog } from '@/components/ui/confirm-dialog';
import { scopeLabel, type ApprovalScope } from '@/components/rules/use-approve-for';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { RiskBadge } from './risk-badge';

/** The extra step before running tools that are dangerous or ask for confirmation (MGP). */
export function ConfirmDialog({
  proposals,
  andThen,
  onCancel,
  onConfirm,
}: {
  proposals: readonly Proposal[];
  /** What confirming does: run them once, "always allow" (approve now and grant for later), or approve by a rule for a while. */
  andThen: 'approve' | 'grant' | ApprovalScope;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const one = proposals.length === 1 ? proposals[0] : undefined;
  const name = one ? (one.toolName ?? one.method) : `${proposals.length} proposals`;
  const scope = andThen === 'approve' || andThen === 'grant' ? undefined : scopeLabel(andThen, one?.proposer ?? '');
  const copy =
    andThen === 'grant'
      ? {
          title: `Always allow ${name}?`,
          description: (
            <>
              <span className="font-mono">{one?.proposer}</span> will be able to call <span className="font-mono">{name}</span> directly from now on, without
              asking, although the tool is marked risky. You can revoke it later.
            </>
          ),
          confirm: 'Approve and always allow',
        }
      : scope
        ? {
            title: `Approve ${name} ${scope}?`,
            description: (
              <>
                A rule will run calls like this one of <span className="font-mono">{name}</span> from <span className="font-mono">{one?.proposer}</span> {scope}{' '}
                with no one asked, although the tool is marked risky. You can delete the rule at any time.
              </>
            ),
            confirm: `Approve ${scope}`,
          }
        : {
            title: `Run ${name}?`,
            description: 'These tools are marked dangerous or ask for confirmation before each run.',
            confirm: one ? `Run ${name}` : `Run ${proposals.length}`,
          };
  return (
    <SharedConfirmDialog
      open
      closeButton={false}
      title={copy.title}
      description={copy.description}
      confirmLabel={copy.confirm}
      onConfirm={onConfirm}
      onCancel={onCancel}
      classNames={{
        cancel: `${buttonClass.base} ${buttonClass.neutral}`,
        confirm: `${buttonClass.base} ${andThen === 'approve' ? buttonClass.danger : buttonClass.grant}`,
      }}
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
