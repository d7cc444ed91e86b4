import { budgetUsage, spendOf, worseState, type BudgetLimits, type BudgetSpend, type BudgetState } from './budget';

/** One participant's budget as `GET /api/spaces/{space}/budgets` reports it. */
export interface BudgetReport extends BudgetLimits {
  participant: string;
  /** Its latest report's tokens (`total_tokens`, else `tokens`); 0 until it reports after the gateway started. */
  spent_tokens: number;
  spent_usd?: number;
  state: BudgetState;
  /** ISO times this budget setting crossed 80 % and 100 % (forgotten when the budget changes). */
  warned_at?: string;
  exceeded_at?: string;
  /** `config`, or the operator (or `admin`) who set it at run time. */
  set_by: string;
  set_at?: string;
  source: 'config' | 'runtime';
}

/** A budget as of the participant's latest status, which may be newer than the report. */
export interface CurrentBudget {
  spend: BudgetSpend;
  /** The share of the budget spent (the larger of its limits), when known. */
  ratio?: number;
  state: BudgetState;
}

/**
 * The report brought up to date by the latest `participant/status` seen (statuses arrive live, reports by polling):
 * that status's spend, and the worse of its state and the report's (which remembers alerts the spend may not show).
 */
export function currentBudget(report: BudgetReport, latestStatus?: Readonly<Record<string, unknown>>): CurrentBudget {
  const spend = (latestStatus && spendOf(latestStatus, report.price_per_1k_tokens_usd)) ?? {
    tokens: report.spent_tokens,
    ...(report.spent_usd !== undefined && { usd: report.spent_usd }),
  };
  const usage = budgetUsage(report, spend);
  return { spend, ...(usage && { ratio: usage.ratio }), state: worseState(report.state, usage?.state ?? 'ok') };
}
