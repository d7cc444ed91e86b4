'use client';

import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { Dialog, DialogFooter } from '@/components/ui/dialog';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { Kbd } from './kbd';
import { REASON_WORDS, REJECT_REASONS, type RejectReason } from './reject-reasons';

/** The reason whose number key `event` pressed (1–8, top row or keypad), if any. */
function reasonOfKey(event: KeyboardEvent): RejectReason | undefined {
  const digit = /^(?:Digit|Numpad)([1-9])$/.exec(event.code)?.[1];
  return digit === undefined ? undefined : REJECT_REASONS[Number(digit) - 1];
}

/**
 * Reject from the keyboard: focus starts in the explanation, so what one types at once is kept; a reason is a chip,
 * picked by its number key (Alt+number while typing, where a digit is text) or by the arrows; Ctrl/⌘+Enter sends
 * from anywhere in the dialog. The reason code (spec §3.3.3) and the explanation go in the `mcp/reject`, which the
 * audit log keeps; the explanation also reaches each proposer as a chat correlated to the reject. Mounted only
 * while open.
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
  const explanationId = useId();
  const hintId = useId();
  const sent = useRef(false);
  const one = proposals.length === 1 ? proposals[0] : undefined;
  const proposers = [...new Set(proposals.map((p) => p.proposer))].join(', ');

  const submit = () => {
    if (sent.current) return; // a held Ctrl+Enter repeats
    sent.current = true;
    onReject(reason, explanation.trim());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      return submit();
    }
    const typing = event.target instanceof HTMLTextAreaElement;
    const picked = reasonOfKey(event);
    if (picked && !event.ctrlKey && !event.metaKey && (typing ? event.altKey : !event.altKey)) {
      event.preventDefault();
      setReason(picked);
    }
  };

  return (
    <Dialog
      open
      closeButton={false}
      title={one ? `Reject ${one.toolName ?? one.method}` : `Reject ${proposals.length} proposals`}
      description={
        <>
          Nothing runs. <span className="font-mono">{proposers}</span> {proposers.includes(',') ? 'are' : 'is'} told no, with your reason and explanation; the
          audit log keeps both.
        </>
      }
      onClose={onCancel}
    >
      <form
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
        onKeyDown={onKeyDown}
      >
        <div className="flex flex-col gap-1">
          <label htmlFor={explanationId} className="text-sm font-medium text-slate-200">
            Explanation <span className="font-normal text-slate-400">(optional: what {proposers} should know or do instead)</span>
          </label>
          <textarea
            id={explanationId}
            data-autofocus
            value={explanation}
            rows={3}
            aria-describedby={hintId}
            onChange={(event) => setExplanation(event.target.value)}
            className="rounded border border-slate-700 bg-slate-900 p-2 text-sm text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
          />
        </div>
        <fieldset className="flex flex-col gap-1.5">
          <legend className="mb-1 text-sm font-medium text-slate-200">Reason</legend>
          <div className="flex flex-wrap gap-1.5">
            {REJECT_REASONS.map((code, index) => {
              const words = REASON_WORDS[code];
              return (
                <label
                  key={code}
                  title={words.description}
                  className="relative inline-flex items-center gap-1.5 rounded-full border border-slate-700 bg-slate-900 px-2.5 py-1 text-xs text-slate-200 has-checked:border-red-600 has-checked:bg-red-950 has-checked:text-red-100"
                >
                  {/* The radio covers its chip (transparent), so a click anywhere on the chip is a click on it. */}
                  <input
                    type="radio"
                    name="reject-reason"
                    value={code}
                    checked={reason === code}
                    onChange={() => setReason(code)}
                    className="absolute inset-0 cursor-pointer appearance-none rounded-full focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
                  />
                  <Kbd>{String(index + 1)}</Kbd>
                  {words.label}
                </label>
              );
            })}
          </div>
          <p className="text-xs text-slate-400">{REASON_WORDS[reason].description}.</p>
        </fieldset>
        <p id={hintId} className="text-xs text-slate-500">
          Ctrl+Enter (⌘+Enter) sends. Number keys pick a reason; while typing, Alt+number.
        </p>
        <DialogFooter>
          <button type="button" className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className={`${buttonClass.base} ${buttonClass.danger}`}>
            {one ? 'Reject' : `Reject ${proposals.length}`} <Kbd>Ctrl+Enter</Kbd>
          </button>
        </DialogFooter>
      </form>
    </Dialog>
  );
}
