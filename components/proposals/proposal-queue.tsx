'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { pendingProposals, proposalById, proposalHistory, type Proposal } from '@/lib/store';
import { AlwaysAllowedList } from './always-allowed-list';
import { buttonClass } from './button-styles';
import { ConfirmDialog } from './confirm-dialog';
import { EditDialog } from './edit-dialog';
import { HelpDialog } from './help-dialog';
import { ProposalCard, type CardAction } from './proposal-card';
import { RejectDialog } from './reject-dialog';
import { toolInfo } from './store-access';
import type { RejectReason } from './reject-reasons';
import { useProposalActions, needsConfirmation } from './use-proposal-actions';
import { useQueueHotkeys, type QueueKey } from './use-queue-hotkeys';
import { useToolDiscovery } from './use-tool-discovery';
import { NOT_NOW_MINUTES, useSnoozes } from './use-snoozes';
import { RuleSuggestions } from '@/components/rules/rule-suggestions';
import { ApproveByRuleDialog } from '@/components/rules/approve-by-rule-dialog';
import { useRules } from '@/components/rules/rules-context';
import { ruleBlocker, useApproveFor, type ApprovalScope } from '@/components/rules/use-approve-for';
import { measureFromResizeObserver } from '@/components/ui/measure-from-resize-observer';

type Row = { kind: 'proposal'; proposal: Proposal } | { kind: 'history'; count: number } | { kind: 'empty' };

// Proposals are snapshotted when a dialog opens and re-read from the store when it is confirmed.
type Dialog =
  | { type: 'help' }
  | { type: 'edit'; proposal: Proposal }
  | { type: 'reject'; proposals: readonly Proposal[] }
  | { type: 'confirm'; proposals: readonly Proposal[] }
  | { type: 'rule'; proposal: Proposal; scope: ApprovalScope };

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * The approvers' queue: every `mcp/proposal` the moment it arrives, pending ones first (oldest first), then the
 * searchable history (newest first), in one virtualised list. Approve, edit then approve, reject with a reason,
 * approve by a rule (always, or for a while: the narrowest rule of the proposal's shape, its scope shown first), and
 * batch decisions, from the mouse or the keyboard (`?` lists the keys).
 */
export function ProposalQueue() {
  const { store, space } = useSpaceSession();
  const allPending = useSpace(pendingProposals);
  const { snoozed, snooze, wake } = useSnoozes(space);
  const [showSnoozed, setShowSnoozed] = useState(false);
  // Urgent ones (escalated: nobody decided in time) first; "Not now" ones hidden unless asked for or urgent.
  const hidden = useMemo(() => allPending.filter((p) => snoozed.has(p.id) && !p.escalation), [allPending, snoozed]);
  const pending = useMemo(() => {
    const away = new Set(hidden);
    const shown = showSnoozed || away.size === 0 ? allPending : allPending.filter((p) => !away.has(p));
    return shown.some((p) => p.escalation) ? [...shown.filter((p) => p.escalation), ...shown.filter((p) => !p.escalation)] : shown;
  }, [allPending, hidden, showSnoozed]);
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query.trim());
  const history = useSpace((s) => proposalHistory(s, deferredQuery));
  const [selectedId, setSelectedId] = useState<string>();
  const [checked, setChecked] = useState<ReadonlySet<string>>(NO_IDS);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const actions = useProposalActions();
  useToolDiscovery(pending);

  const rows = useMemo<Row[]>(
    () => [
      ...(pending.length === 0 ? [{ kind: 'empty' } as const] : pending.map((proposal) => ({ kind: 'proposal', proposal }) as const)),
      ...(history.length > 0 || deferredQuery ? [{ kind: 'history', count: history.length } as const] : []),
      ...history.map((proposal) => ({ kind: 'proposal', proposal }) as const),
    ],
    [pending, history, deferredQuery],
  );
  const order = useMemo(() => rows.flatMap((r) => (r.kind === 'proposal' ? [r.proposal.id] : [])), [rows]);
  const selected = selectedId !== undefined && order.includes(selectedId) ? selectedId : order[0];
  const checkedPending = useMemo(() => pending.filter((p) => checked.has(p.id)), [pending, checked]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === 'proposal' ? 280 : 44),
    measureElement: measureFromResizeObserver,
    getItemKey: (i) => {
      const row = rows[i];
      return row?.kind === 'proposal' ? row.proposal.id : (row?.kind ?? i);
    },
    overscan: 4,
  });

  const latest = useCallback((proposals: readonly Proposal[]) => proposals.map((p) => proposalById(store.getState(), p.id) ?? p), [store]);

  // After deciding on the selected proposal, move on to the next pending one (keyboard triage).
  const moveOn = useCallback(
    (decided: readonly string[]) => {
      setChecked((prev) => (decided.some((id) => prev.has(id)) ? new Set([...prev].filter((id) => !decided.includes(id))) : prev));
      // From the selection as it is now, not as this callback last saw it: a click selects its card (on focus) in
      // the same gesture that decides it, possibly before this callback was renewed.
      setSelectedId((current) => {
        const at = current !== undefined && order.includes(current) ? current : order[0];
        if (at === undefined || !decided.includes(at)) return current;
        const index = pending.findIndex((p) => p.id === at);
        return [...pending.slice(index + 1), ...pending.slice(0, Math.max(0, index)).reverse()].find((p) => !decided.includes(p.id))?.id;
      });
    },
    [pending, order],
  );

  const stillPending = useCallback(
    (proposals: readonly Proposal[]) => {
      const now = latest(proposals);
      const gone = now.filter((p) => p.state !== 'pending');
      for (const p of gone) toast(`${p.toolName ?? p.method} from ${p.proposer} is already ${p.state}`);
      return now.filter((p) => p.state === 'pending');
    },
    [latest],
  );

  const approve = useCallback(
    (proposals: readonly Proposal[], confirmed: boolean) => {
      const ready = stillPending(proposals);
      if (ready.length === 0) return;
      if (!confirmed && ready.some(needsConfirmation)) return setDialog({ type: 'confirm', proposals: ready });
      const ok = ready.length === 1 ? actions.approve(ready[0]) : actions.approveMany(ready);
      if (ok) moveOn(ready.map((p) => p.id));
    },
    [actions, moveOn, stillPending],
  );

  const rules = useRules();
  const approveFor = useApproveFor();
  // The rule dialog shows the rule's scope (and the tool's risk) first; confirming it creates the rule.
  const askRule = useCallback(
    (proposal: Proposal, scope: ApprovalScope) => {
      const why = ruleBlocker(rules);
      if (why) return void toast(`No rule can approve ${proposal.toolName ?? proposal.method} from here: ${why}`);
      setDialog({ type: 'rule', proposal, scope });
    },
    [rules],
  );
  const approveWithRule = useCallback(
    (proposal: Proposal, scope: ApprovalScope) => {
      const [ready] = stillPending([proposal]);
      if (!ready) return;
      moveOn([ready.id]);
      void approveFor(ready, scope);
    },
    [approveFor, moveOn, stillPending],
  );

  const act = useCallback(
    (action: CardAction, id: string) => {
      const proposal = proposalById(store.getState(), id);
      // No re-selection here: focus already selected the card, and a decision may have moved the selection on.
      if (!proposal) return;
      if (action === 'toggle') {
        if (proposal.state !== 'pending') return;
        return setChecked((prev) => {
          const next = new Set(prev);
          if (!next.delete(id)) next.add(id);
          return next;
        });
      }
      if (proposal.state !== 'pending') {
        toast(`${proposal.toolName ?? proposal.method} from ${proposal.proposer} is already ${proposal.state}`, {
          description: 'Select a pending proposal with j / k.',
        });
        return;
      }
      if (action === 'approve') approve([proposal], false);
      else if (action === 'always') askRule(proposal, 'always');
      else if (action === 'approve-for') askRule(proposal, 'hour');
      else if (action === 'snooze') {
        moveOn([proposal.id]);
        snooze(proposal.id);
        toast(`Not now: ${proposal.toolName ?? proposal.method} from ${proposal.proposer} is hidden for ${NOT_NOW_MINUTES} minutes`, {
          description: 'It is still pending for everyone else, and comes back at once if it becomes urgent.',
          action: { label: 'Show it again', onClick: () => wake([proposal.id]) },
        });
      } else if (action === 'edit') setDialog({ type: 'edit', proposal });
      else setDialog({ type: 'reject', proposals: [proposal] });
    },
    [store, approve, askRule, moveOn, snooze, wake],
  );

  const select = useCallback(
    (id: string, focus: boolean) => {
      setSelectedId(id);
      const index = rows.findIndex((r) => r.kind === 'proposal' && r.proposal.id === id);
      if (index < 0) return;
      virtualizer.scrollToIndex(index, { align: 'auto' });
      if (focus) {
        // The row may only mount after the scroll: focus it on the next frames.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-proposal-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true })),
        );
      }
    },
    [rows, virtualizer],
  );

  const onKey = useCallback(
    (key: QueueKey) => {
      if (key === '?') return setDialog({ type: 'help' });
      if (key === 'j' || key === 'k') {
        if (order.length === 0) return;
        const index = selected === undefined ? -1 : order.indexOf(selected);
        const next = key === 'j' ? Math.min(order.length - 1, index + 1) : Math.max(0, index - 1);
        return select(order[next], true);
      }
      if (selected === undefined) return;
      const action: Record<'a' | 'e' | 'r' | 'g' | 'x' | 'n', CardAction> = { a: 'approve', e: 'edit', r: 'reject', g: 'always', x: 'toggle', n: 'snooze' };
      act(action[key], selected);
    },
    [order, selected, select, act],
  );
  useQueueHotkeys(onKey, dialog === null);

  const onSelect = useCallback((id: string) => setSelectedId(id), []);
  // Cards get a callback that never changes, so a queue update does not re-render every visible card.
  const actRef = useRef(act);
  useEffect(() => {
    actRef.current = act;
  }, [act]);
  const onAction = useCallback((action: CardAction, id: string) => actRef.current(action, id), []);
  const closeDialog = useCallback(() => setDialog(null), []);

  return (
    <section aria-labelledby="proposal-queue-heading" className="flex min-w-0 flex-col gap-2 rounded-lg border border-slate-800 bg-slate-950 p-3">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="proposal-queue-heading" className="text-sm font-semibold text-slate-200">
          Proposals
        </h2>
        <span
          aria-live="polite"
          className={`rounded-full px-2 py-px text-xs ${allPending.length > 0 ? 'bg-sky-900/70 text-sky-200' : 'bg-slate-800 text-slate-400'}`}
        >
          {allPending.length} pending
        </span>
        {hidden.length > 0 && (
          <button
            type="button"
            aria-pressed={showSnoozed}
            onClick={() => setShowSnoozed((s) => !s)}
            className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`}
          >
            {showSnoozed ? `Hide the ${hidden.length} put off` : `${hidden.length} put off (Not now): show`}
          </button>
        )}
        <div className="ml-auto flex min-w-0 flex-1 items-center justify-end gap-2 sm:flex-none">
          <input
            type="search"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            aria-label="Search proposal history"
            placeholder="Search history…"
            className="w-full min-w-0 rounded border border-slate-700 bg-slate-900 px-2 py-1 text-sm text-slate-100 placeholder:text-slate-500 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 sm:w-56"
          />
          <button
            type="button"
            onClick={() => setDialog({ type: 'help' })}
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
            className={`${buttonClass.base} ${buttonClass.neutral} px-2.5 py-1`}
          >
            ?
          </button>
        </div>
      </div>

      <RuleSuggestions />

      {pending.length > 0 && (
        <div role="toolbar" aria-label="Batch decisions" className="flex flex-wrap items-center gap-2 text-xs text-slate-300">
          <span>{checkedPending.length > 0 ? `${checkedPending.length} selected` : 'Batch:'}</span>
          {checkedPending.length < pending.length && (
            <button
              type="button"
              className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`}
              onClick={() => setChecked(new Set(pending.map((p) => p.id)))}
            >
              Select all pending
            </button>
          )}
          {checkedPending.length > 0 && (
            <>
              <button type="button" className={`${buttonClass.base} ${buttonClass.approve} px-2 py-0.5 text-xs`} onClick={() => approve(checkedPending, false)}>
                Approve selected ({checkedPending.length})
              </button>
              <button
                type="button"
                className={`${buttonClass.base} ${buttonClass.rejectOutline} px-2 py-0.5 text-xs`}
                onClick={() => setDialog({ type: 'reject', proposals: checkedPending })}
              >
                Reject selected ({checkedPending.length})
              </button>
              <button type="button" className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`} onClick={() => setChecked(NO_IDS)}>
                Clear selection
              </button>
            </>
          )}
        </div>
      )}

      <div ref={scrollRef} className="max-h-[75vh] min-h-24 overflow-y-auto overscroll-contain">
        <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="absolute top-0 left-0 w-full pb-2"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row.kind === 'proposal' ? (
                  <ProposalCard
                    proposal={row.proposal}
                    selected={row.proposal.id === selected}
                    checked={checked.has(row.proposal.id)}
                    onSelect={onSelect}
                    onAction={onAction}
                  />
                ) : row.kind === 'history' ? (
                  <h3 className="pt-2 text-xs font-semibold tracking-wide text-slate-400 uppercase">
                    History · {row.count}
                    {deferredQuery ? ` matching “${deferredQuery}”` : ''}
                  </h3>
                ) : (
                  <p className="rounded-lg border border-dashed border-slate-800 p-4 text-center text-sm text-slate-500">
                    {hidden.length > 0
                      ? `Nothing else pending: ${hidden.length} put off for later (Not now).`
                      : 'No pending proposals. Agents’ proposals appear here the moment they arrive.'}
                  </p>
                )}
              </div>
            );
          })}
        </div>
      </div>

      <AlwaysAllowedList actions={actions} />

      {dialog?.type === 'help' && <HelpDialog onClose={closeDialog} />}
      {dialog?.type === 'edit' && (
        <EditDialogForProposal
          proposal={dialog.proposal}
          onCancel={closeDialog}
          onApprove={(params) => {
            const [ready] = stillPending([dialog.proposal]);
            setDialog(null);
            if (ready && actions.approve(ready, params)) moveOn([ready.id]);
          }}
        />
      )}
      {dialog?.type === 'reject' && (
        <RejectDialog
          proposals={dialog.proposals}
          onCancel={closeDialog}
          onReject={(reason: RejectReason, explanation: string) => {
            const ready = stillPending(dialog.proposals);
            setDialog(null);
            if (ready.length > 0 && actions.reject(ready, reason, explanation)) moveOn(ready.map((p) => p.id));
          }}
        />
      )}
      {dialog?.type === 'confirm' && (
        <ConfirmDialog
          proposals={dialog.proposals}
          onCancel={closeDialog}
          onConfirm={() => {
            setDialog(null);
            approve(dialog.proposals, true);
          }}
        />
      )}
      {dialog?.type === 'rule' && (
        <ApproveByRuleDialog
          proposal={dialog.proposal}
          scope={dialog.scope}
          onCancel={closeDialog}
          onConfirm={(scope) => {
            setDialog(null);
            approveWithRule(dialog.proposal, scope);
          }}
        />
      )}
    </section>
  );
}

// The tool's inputSchema as the target's tools/list declares it (read when the dialog opens).
function EditDialogForProposal(props: { proposal: Proposal; onCancel: () => void; onApprove: (params: unknown) => void }) {
  const { proposal } = props;
  const inputSchema = useSpace((s) => toolInfo(s, proposal.target, proposal.toolName)?.inputSchema);
  return <EditDialog {...props} inputSchema={inputSchema} />;
}
