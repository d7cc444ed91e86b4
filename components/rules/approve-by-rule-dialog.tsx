'use client';

import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { buttonClass } from '@/components/proposals/button-styles';
import { Kbd } from '@/components/proposals/kbd';
import { RiskBadge } from '@/components/proposals/risk-badge';
import { needsConfirmation } from '@/components/proposals/use-proposal-actions';
import { Dialog, DialogFooter } from '@/components/ui/dialog';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';
import { scopeOf } from '@/lib/rules/rule-shape';
import type { Proposal } from '@/lib/store';
import { APPROVAL_SCOPES, approvalRuleFor, scopeEnd, scopeLabel, type ApprovalScope } from './use-approve-for';

const sentenceCase = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The one safe "always": before a rule approves this proposal and the later ones of its shape, it shows exactly what
 * the rule will cover (the narrowest match of this proposal: its proposer, target, tool, and each argument pinned or
 * free) and for how long (always, an hour, the proposer's session), with the tool's risk. Focus starts on the
 * duration; Enter or Ctrl/⌘+Enter confirms, Escape cancels. Mounted only while open. The argument values the rule
 * pins are this proposal's, so a secret among them shows masked as on its card, with the operator's audited Reveal.
 */
export function ApproveByRuleDialog({
  proposal: p,
  scope: initial,
  onCancel,
  onConfirm,
}: {
  proposal: Proposal;
  scope: ApprovalScope;
  onCancel: () => void;
  onConfirm: (scope: ApprovalScope) => void;
}) {
  const [scope, setScope] = useState(initial);
  const confirmed = useRef(false);
  const scopeId = useId();
  const name = p.toolName ?? p.method;
  const rule = useMemo(() => approvalRuleFor(p, 'always'), [p]);
  const match = useMaskedValue(p.id, rule.match);
  const lines = useMemo(() => scopeOf(match.shown, p.method === 'tools/call' ? p.arguments : undefined), [match.shown, p]);
  const risky = needsConfirmation(p);

  const confirm = () => {
    if (confirmed.current) return;
    confirmed.current = true;
    onConfirm(scope);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    const onRadio = event.target instanceof HTMLInputElement && event.target.type === 'radio';
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey || onRadio)) {
      event.preventDefault();
      confirm();
    }
  };

  return (
    <Dialog
      open
      closeButton={false}
      title={`Approve ${name} by a rule`}
      description={
        <>
          This call runs now, and every later call that fits the rule below runs with no one asked, until the rule ends. Calls that do not fit still wait for a
          person.
        </>
      }
      onClose={onCancel}
    >
      <form
        className="flex flex-col gap-3"
        aria-describedby={scopeId}
        onSubmit={(event) => {
          event.preventDefault();
          confirm();
        }}
        onKeyDown={onKeyDown}
      >
        <section id={scopeId} aria-label="What the rule approves" className="rounded border border-slate-700 p-2">
          <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-400 uppercase">What the rule approves</h3>
          {match.secret && (
            <p className="mb-1">
              <SecretMask envelopeId={p.id} what="proposal" />
            </p>
          )}
          <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-sm">
            {lines.map((line) => (
              <div key={line.field} className="contents">
                <dt className="font-mono text-slate-400">{line.field}</dt>
                <dd className="min-w-0 break-words text-slate-100">
                  {line.words}
                  {line.pattern !== undefined && line.words !== `exactly ${line.pattern}` && (
                    <span className="ml-1.5 font-mono text-xs text-slate-400">({line.pattern})</span>
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </section>
        {risky && (
          <p role="alert" className="flex flex-wrap items-center gap-2 rounded border border-red-800 bg-red-950/40 px-2 py-1 text-xs text-red-200">
            <RiskBadge risk={p.risk} /> {name} is marked risky: the rule will run it with no one looking.
          </p>
        )}
        <fieldset className="flex flex-col gap-1">
          <legend className="mb-1 text-sm font-medium text-slate-200">For how long</legend>
          {APPROVAL_SCOPES.map((option) => (
            <label key={option} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="radio"
                name="approval-scope"
                value={option}
                checked={scope === option}
                data-autofocus={option === initial ? true : undefined}
                onChange={() => setScope(option)}
                className="size-4 accent-sky-500"
              />
              <span>{sentenceCase(scopeLabel(option, p.proposer))}</span>
              <span className="text-xs text-slate-400">· ends {scopeEnd(option, p.proposer)}</span>
            </label>
          ))}
        </fieldset>
        <DialogFooter>
          <p className="mr-auto text-xs text-slate-500">You can edit or delete the rule under Rules.</p>
          <button type="button" className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className={`${buttonClass.base} ${buttonClass.grant}`}>
            Approve {scopeLabel(scope, p.proposer)} <Kbd>Enter</Kbd>
          </button>
        </DialogFooter>
      </form>
    </Dialog>
  );
}
