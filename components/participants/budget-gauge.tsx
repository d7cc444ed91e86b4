'use client';

import { useCallback, useEffect, useRef } from 'react';
import { toast } from 'sonner';
import { useThrottledSpace } from '@/components/watch/use-throttled-space';
import { formatTokens, formatUsd } from '@/lib/budgets/budget';
import { currentBudget, type CurrentBudget } from '@/lib/budgets/budget-report';
import { BUDGET_PAUSE_REASON, type BudgetReport, type BudgetState } from '@/lib/protocol';
import { telemetryOf, type PauseState, type SpaceStoreState } from '@/lib/store';
import { useBudget } from './budgets';

/** The gauge redraws at most this often, like the context gauge beside it. */
const GAUGE_REFRESH_MS = 500;

const LOOK: Record<BudgetState, { bar: string; text: string; word: string }> = {
  ok: { bar: 'bg-sky-500', text: 'text-sky-300', word: 'ok' },
  warning: { bar: 'bg-amber-400', text: 'text-amber-300', word: 'warning' },
  exceeded: { bar: 'bg-red-500', text: 'text-red-300', word: 'exhausted' },
};

/** `8 200 / 10 000 tokens · $0.41 / $1.00`: each limit the budget has. */
function spendText(budget: BudgetReport, { spend }: CurrentBudget): string {
  const parts = [];
  if (budget.tokens !== undefined) parts.push(`${formatTokens(spend.tokens)} / ${formatTokens(budget.tokens)} tokens`);
  if (budget.usd !== undefined) parts.push(`${spend.usd === undefined ? '$?' : formatUsd(spend.usd)} / ${formatUsd(budget.usd)}`);
  return parts.join(' · ');
}

/** The pause in force when the gateway paused it for its budget. */
function budgetPause(paused: PauseState | undefined): PauseState | undefined {
  return paused?.reason?.startsWith(BUDGET_PAUSE_REASON) ? paused : undefined;
}

/**
 * A participant's budget: what it spent of it (from its latest status, so the gauge moves as reports arrive; the
 * server's report between polls), amber from 80 %, red at 100 %, and when the gateway paused it for that, saying so.
 * Crossing 80 % and a budget pause are toasted once each, when they happen while the page is open.
 */
export function BudgetGauge({ participant, paused }: { participant: string; paused?: PauseState }) {
  const { budget } = useBudget(participant);
  const status = useThrottledSpace(
    useCallback((s: SpaceStoreState) => telemetryOf(s, participant)?.latest.payload, [participant]),
    GAUGE_REFRESH_MS,
  );
  const current = budget && currentBudget(budget, status);
  const pause = budgetPause(paused);
  useBudgetToasts(participant, budget, current, pause);

  if (!budget || !current) return null;
  const percent = current.ratio === undefined ? undefined : Math.round(current.ratio * 100);
  const look = LOOK[current.state];
  const text = spendText(budget, current);
  return (
    <div className="flex flex-col gap-1">
      <div
        role="meter"
        aria-label={`Budget of ${participant}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(100, percent ?? 0)}
        aria-valuetext={`${text}${percent === undefined ? '' : `, ${percent}%`} (${look.word})`}
        data-state={current.state}
        className="h-1.5 w-full overflow-hidden rounded-full bg-slate-800"
      >
        <div className={`h-full rounded-full ${look.bar}`} style={{ width: `${Math.min(100, percent ?? 0)}%` }} />
      </div>
      <p className="flex flex-wrap items-baseline gap-x-2 text-xs text-slate-400">
        <span title={budget.source === 'config' ? 'Set in the space config' : `Set by ${budget.set_by}`}>Budget {text}</span>
        <span className={`font-medium ${look.text}`}>
          {percent === undefined ? '' : `${percent}% · `}
          {look.word}
        </span>
        {pause && <span className="font-medium text-red-300">paused: budget exhausted</span>}
      </p>
    </div>
  );
}

/**
 * Toasts crossing 80 % and a budget pause, once each, only for what changes while this card watches: what it finds
 * at first sight of a budget (a reload, a catch-up) already happened and was told then.
 */
function useBudgetToasts(participant: string, budget: BudgetReport | undefined, current: CurrentBudget | undefined, pause: PauseState | undefined) {
  const seen = useRef<{ setting: string; state: BudgetState; pauseId?: string }>(undefined);
  const setting = budget && `${budget.source}:${budget.set_at ?? ''}:${budget.tokens ?? ''}:${budget.usd ?? ''}`;
  const state = current?.state;
  const pauseId = pause?.controlId;
  useEffect(() => {
    if (setting === undefined || state === undefined) return;
    const before = seen.current;
    seen.current = { setting, state, pauseId };
    if (before?.setting !== setting) return;
    if (before.state === 'ok' && state !== 'ok') {
      toast.warning(`${participant} passed 80% of its budget`, { id: `budget-warning-${participant}-${setting}` });
    }
    if (pauseId !== undefined && pauseId !== before.pauseId) {
      toast.warning(`${participant} paused: budget exhausted`, { id: `budget-pause-${pauseId}`, description: pause?.reason });
    }
  }, [participant, setting, state, pauseId, pause?.reason]);
}
