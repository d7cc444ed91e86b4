'use client';

import { useId, useState } from 'react';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { REJECT_REASONS, type RejectReason } from './reject-reasons';

/**
 * Reject with a reason code (spec §3.3.3) and an optional explanation, which goes to each proposer as a follow-up
 * chat correlated to the reject. Mounted only while open.
 */
export function RejectDialog({
  proposals,
  onCancel,
  onReject,
}: {
  proposals: readonly Proposal[];
  onCancel: () => void;
  onReject: (reason: RejectReason, explanation: string) => void;
}) {
  const [reason, setReason] = useState<RejectReason>('disagree');
  const [explanation, setExplanation] = useState('');
  const reasonId = useId();
  const explanationId = useId();
  const one = proposals.length === 1 ? proposals[0] : undefined;
  const proposers = [...new Set(proposals.map((p) => p.proposer))].join(', ');
  const submit = () => onReject(reason, explanation.trim());

  return (
    <Dialog
      open
      closeButton={false}
      title={one ? `Reject ${one.toolName ?? one.method}` : `Reject ${proposals.length} proposals`}
      description={
        <>
          {one ? 'The proposal' : 'Each proposal'} by <span className="font-mono">{proposers}</span> is declined with{' '}
          <span className="font-mono">mcp/reject</span>.
        </>
      }
      onClose={onCancel}
    >
      <DialogForm onSubmit={submit}>
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId} className="text-sm font-medium text-slate-200">
            Reason
          </label>
          <select
            id={reasonId}
            data-autofocus
            value={reason}
            onChange={(event) => setReason(event.target.value as RejectReason)}
            className="rounded border border-slate-700 bg-slate-900 px-2 py-1.5 text-sm text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
          >
            {REJECT_REASONS.map((r) => (
              <option key={r.code} value={r.code}>
                {r.code} — {r.description}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={explanationId} className="text-sm font-medium text-slate-200">
            Explanation <span className="font-normal text-slate-400">(optional, sent as a chat to {proposers})</span>
          </label>
          <textarea
            id={explanationId}
            value={explanation}
            rows={3}
            onChange={(event) => setExplanation(event.target.value)}
            className="rounded border border-slate-700 bg-slate-900 p-2 text-sm text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
          />
        </div>
        <DialogFooter>
          <button type="button" className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className={`${buttonClass.base} ${buttonClass.danger}`}>
            {one ? 'Reject' : `Reject ${proposals.length}`}
          </button>
        </DialogFooter>
      </DialogForm>
    </Dialog>
  );
}
