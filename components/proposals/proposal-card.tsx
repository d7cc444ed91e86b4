'use client';

import { memo, useId, useMemo, useState } from 'react';
import { useAuditView } from '@/components/audit/audit-view';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { Kbd } from './kbd';
import { Age, Countdown } from './proposal-clock';
import { ProposalArguments } from './proposal-arguments';
import { ProposalOutcome } from './proposal-outcome';
import { ApprovalCount } from './approval-count';
import { RiskBadge } from './risk-badge';
import { StatusBadge } from './status-badge';
import { toolGrantFor } from './tool-grants';
import { approveBlocker } from './use-proposal-actions';
import { useRules } from '@/components/rules/rules-context';
import { ruleBlocker } from '@/components/rules/use-approve-for';
import { NOT_NOW_MINUTES } from './use-snoozes';
import { argumentsAtAGlance } from './proposal-content';
import { ChangedToolWarning } from '@/components/tools/changed-tool-warning';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';

// Pending cards carry their risk on the left edge, so a dangerous one stands out while scanning the queue.
const ACCENT: Record<string, string> = { safe: 'border-l-emerald-600', moderate: 'border-l-amber-500', dangerous: 'border-l-red-600' };

// A click on a card's own button runs its action, which may move the selection on; the bubbling click must not
// select this card again.
const isControl = (target: EventTarget) => target instanceof Element && target.closest('button, input') !== null;

/**
 * What a card asks its queue to do; the queue owns dialogs and selection. `always` and `approve-for` open the rule
 * dialog (the narrowest rule of this proposal's shape, its scope shown first), for good or for a while.
 */
export type CardAction = 'approve' | 'edit' | 'reject' | 'always' | 'approve-for' | 'toggle' | 'snooze';

/**
 * One proposal: who proposes what to whom, the tool's risk, its age and countdown, the exact arguments (or a diff),
 * and either the decision buttons (pending) or what became of it.
 */
export const ProposalCard = memo(function ProposalCard({
  proposal: p,
  selected,
  checked,
  onSelect,
  onAction,
  basic = false,
}: {
  proposal: Proposal;
  selected: boolean;
  checked: boolean;
  onSelect: (id: string) => void;
  onAction: (action: CardAction, id: string) => void;
  /** Approve and Reject only (the inbox across spaces; each space's own queue has the rest). */
  basic?: boolean;
}) {
  const { participant, store } = useSpaceSession();
  const audit = useAuditView();
  const rules = useRules();
  const me = useSpace((s) => s.connection.me);
  const grant = useSpace((s) => toolGrantFor(s, p.proposer, p.toolName));
  // What is possible depends on my capabilities and on who offers which tool: re-check only when those change.
  const capabilities = useSpace((s) => s.connection.capabilities);
  const tools = useSpace((s) => s.tools.version);
  // The envelope a proposal names as its context, in words when it is a reasoning step I saw (never a bare id).
  const contextMessage = useSpace((s) => (p.context === undefined ? undefined : s.reasoning.byId.get(p.context)?.message));
  // Masked as the reasoning panel shows it (its reveal is the reasoning/start's).
  const context = useMaskedValue(p.context ?? '', contextMessage);
  const titleId = useId();
  const argumentsId = useId();
  const [expanded, setExpanded] = useState(false);
  const pending = p.state === 'pending';
  const name = p.toolName ?? p.method;

  const approveWhy = useMemo(
    () => (pending ? approveBlocker(participant, store.getState(), p) : undefined),
    [pending, participant, store, p, capabilities, tools, me],
  );
  // Rules approve in the server: only where someone applies them (a supervisor) and I may write them.
  const ruleWhy = ruleBlocker(rules) ?? approveWhy;
  const alwaysTitle = ruleWhy
    ? `Cannot approve by a rule: ${ruleWhy}`
    : `Approve, and let a rule approve ${p.proposer}’s later calls of this shape (you see what it covers first)`;
  // Masked like the arguments themselves (ProposalArguments), revealed with them.
  const { shown: shownArgs } = useMaskedValue(p.id, p.method === 'tools/call' ? p.arguments : p.params);
  const glance = useMemo(
    () => (pending ? undefined : argumentsAtAGlance({ method: p.method, arguments: shownArgs, params: shownArgs })),
    [pending, p.method, shownArgs],
  );

  return (
    <article
      aria-labelledby={titleId}
      aria-current={selected ? 'true' : undefined}
      data-proposal-id={p.id}
      tabIndex={-1}
      onFocus={() => onSelect(p.id)}
      onClick={(event) => !isControl(event.target) && onSelect(p.id)}
      className={`flex min-w-0 flex-col gap-2 rounded-lg border border-l-4 p-3 outline-none transition-colors ${
        selected ? 'border-sky-600 bg-slate-900/80 ring-1 ring-sky-600' : 'border-slate-800 bg-slate-950 hover:border-slate-700'
      } ${pending ? (ACCENT[p.risk?.risk_level ?? ''] ?? 'border-l-slate-600') : 'border-l-slate-800'}`}
    >
      <header className="flex items-start gap-2">
        {pending && !basic && (
          <input
            type="checkbox"
            checked={checked}
            onChange={() => onAction('toggle', p.id)}
            aria-label={`Select ${name} from ${p.proposer} for a batch decision`}
            className="mt-1 size-4 shrink-0 accent-sky-500 focus-visible:ring-2 focus-visible:ring-sky-400"
          />
        )}
        <div className="min-w-0 flex-1">
          <h3 id={titleId} className="truncate font-mono text-sm font-semibold text-slate-100">
            {name}
          </h3>
          <p className="truncate text-xs text-slate-400">
            <span className="sr-only">proposed by </span>
            <span className="font-medium text-slate-200">{p.proposer}</span>
            <span aria-hidden="true"> → </span>
            <span className="sr-only"> to </span>
            <span className="font-medium text-slate-200">{p.targets.length > 0 ? p.targets.join(', ') : 'anyone'}</span>
            <span aria-hidden="true"> · </span>
            <span className="font-mono">{p.method}</span>
          </p>
        </div>
        <StatusBadge state={p.state} />
      </header>

      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-slate-400">
        <RiskBadge risk={p.risk} />
        <Age at={p.at} />
        {pending && p.deadline !== undefined && p.deadlineSource === 'proposer' && <Countdown deadline={p.deadline} from={p.at} proposer={p.proposer} />}
        {grant && pending && (
          <span className="text-sky-300">
            {p.proposer} holds a grant to call {name} with any arguments
          </span>
        )}
        {pending && p.escalation && (
          <span role="status" className="rounded bg-red-900/70 px-1.5 py-px font-semibold text-red-100" title={p.escalation.text}>
            Urgent: undecided for {p.escalation.waitedSeconds} s
          </span>
        )}
        {p.approvals && <ApprovalCount approvals={p.approvals} />}
      </div>

      {/* A redefined tool (its pin changed): said before the arguments, with the diff, since no rule approves it. */}
      {p.method === 'tools/call' && <ChangedToolWarning participant={p.target} tool={p.toolName} pending={pending} />}

      {p.context && (
        <p className="text-[11px] text-slate-500" title={`context ${p.context}`}>
          {contextMessage ? (
            <>
              Part of {p.proposer}’s reasoning: “<span className="text-slate-300">{context.shown}</span>”
              {context.secret && (
                <>
                  {' '}
                  <SecretMask envelopeId={p.context} what="reasoning" />
                </>
              )}
            </>
          ) : (
            `Part of an earlier step of ${p.proposer}’s`
          )}
        </p>
      )}

      {pending ? (
        <>
          {/* On a phone the arguments fold to a few lines, so the decision stays within the thumb's reach. */}
          <div id={argumentsId} className={expanded ? '' : 'max-sm:max-h-40 max-sm:overflow-hidden'}>
            <ProposalArguments proposal={p} />
          </div>
          <button
            type="button"
            aria-expanded={expanded}
            aria-controls={argumentsId}
            onClick={() => setExpanded((e) => !e)}
            className="self-start text-xs text-sky-300 underline-offset-2 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 sm:hidden"
          >
            {expanded ? 'Fold the arguments' : 'Show all the arguments'}
          </button>
        </>
      ) : (
        <details className="text-xs">
          <summary className="cursor-pointer truncate text-slate-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500">
            {p.method === 'tools/call' ? 'Arguments' : 'Params'}
            {glance && (
              <>
                <span aria-hidden="true"> · </span>
                <span className="font-mono text-slate-200">{glance}</span>
              </>
            )}
          </summary>
          <div className="mt-1.5">
            <ProposalArguments proposal={p} />
          </div>
        </details>
      )}

      {!pending && <ProposalOutcome proposal={p} me={me} />}
      {!pending && audit.mayRead && (
        <button
          type="button"
          onClick={() => audit.open({ trace: p.id })}
          className={`${buttonClass.base} ${buttonClass.neutral} self-start`}
          aria-label={`History of ${name} from ${p.proposer}`}
        >
          History
        </button>
      )}

      {pending && (
        <div className="flex flex-col gap-1">
          <div
            className="flex flex-wrap gap-2 max-sm:grid max-sm:grid-cols-2 max-sm:[&_button]:min-h-11 max-sm:[&_button]:w-full max-sm:[&_button]:justify-center"
            role="group"
            aria-label={`Decide on ${name}`}
          >
            <button
              type="button"
              disabled={approveWhy !== undefined}
              onClick={() => onAction('approve', p.id)}
              className={`${buttonClass.base} ${buttonClass.approve} max-sm:order-first`}
            >
              Approve <Kbd>a</Kbd>
            </button>
            {!basic && (
              <button
                type="button"
                disabled={approveWhy !== undefined}
                onClick={() => onAction('edit', p.id)}
                className={`${buttonClass.base} ${buttonClass.neutral}`}
              >
                Edit then approve <Kbd>e</Kbd>
              </button>
            )}
            {!basic && ruleWhy === undefined && (
              <button
                type="button"
                aria-haspopup="dialog"
                title="Approve by a rule for an hour or for the proposer’s session (you see what it covers first)"
                onClick={() => onAction('approve-for', p.id)}
                className={`${buttonClass.base} ${buttonClass.neutral}`}
              >
                Approve for…
              </button>
            )}
            <button type="button" onClick={() => onAction('reject', p.id)} className={`${buttonClass.base} ${buttonClass.rejectOutline} max-sm:-order-1`}>
              Reject <Kbd>r</Kbd>
            </button>
            {!basic && (
              <>
                <button
                  type="button"
                  aria-haspopup="dialog"
                  disabled={ruleWhy !== undefined}
                  title={alwaysTitle}
                  onClick={() => onAction('always', p.id)}
                  className={`${buttonClass.base} ${buttonClass.grant}`}
                >
                  Always approve like this <Kbd>g</Kbd>
                </button>
                <button
                  type="button"
                  title={`Hide it from this browser's queue for ${NOT_NOW_MINUTES} minutes; nobody is told no`}
                  onClick={() => onAction('snooze', p.id)}
                  className={`${buttonClass.base} ${buttonClass.neutral}`}
                >
                  Not now <Kbd>n</Kbd>
                </button>
              </>
            )}
          </div>
          {approveWhy && <p className="text-xs text-amber-300">Cannot approve: {approveWhy}.</p>}
        </div>
      )}
    </article>
  );
});
