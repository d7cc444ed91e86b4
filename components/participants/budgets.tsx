'use client';

import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { usePolledById } from '@/components/session/use-polled-by-id';
import type { BudgetAnswer, BudgetLimits, BudgetList, BudgetReport } from '@/lib/protocol';

/** How often the rail asks the server for the space's budgets (while the tab is visible); statuses move the gauges between polls. */
const BUDGET_POLL_MS = 2_000;

const budgetList = (body: BudgetList) => body.budgets;
const participantOf = (budget: BudgetReport) => budget.participant;

interface Budgets {
  byId: ReadonlyMap<string, BudgetReport>;
  /** Sets a participant's budget (operators); resolves once the server has it, or rejects with the server's message. */
  set(participantId: string, limits: BudgetLimits): Promise<void>;
  /** Back to the config's budget, or none. */
  clear(participantId: string): Promise<void>;
}

const Context = createContext<Budgets>({
  byId: new Map(),
  set: () => Promise.reject(new Error('no budgets provider')),
  clear: () => Promise.reject(new Error('no budgets provider')),
});

/** A participant's budget as the server last reported it, and the way to change it. */
export function useBudget(participantId: string): { budget?: BudgetReport } & Pick<Budgets, 'set' | 'clear'> {
  const { byId, set, clear } = useContext(Context);
  return { budget: byId.get(participantId), set, clear };
}

/** Polls `GET /api/spaces/{space}/budgets` for the whole rail (one request serves every card); the server enforces them. */
export function BudgetsProvider({ children }: { children: ReactNode }) {
  const { space, token } = useSpaceSession();
  const [byId, setById] = usePolledById('/budgets', budgetList, participantOf, BUDGET_POLL_MS);

  const change = useCallback(
    async (participantId: string, method: 'PUT' | 'DELETE', body?: BudgetLimits) => {
      const { budget } = await spaceApi<BudgetAnswer>(space, token, `/budgets/${encodeURIComponent(participantId)}`, { method, body });
      setById((current) => {
        const next = new Map(current);
        if (budget) next.set(participantId, budget);
        else next.delete(participantId);
        return next;
      });
    },
    [space, token, setById],
  );
  const value = useMemo(
    () => ({ byId, set: (id: string, limits: BudgetLimits) => change(id, 'PUT', limits), clear: (id: string) => change(id, 'DELETE') }),
    [byId, change],
  );
  return <Context value={value}>{children}</Context>;
}
