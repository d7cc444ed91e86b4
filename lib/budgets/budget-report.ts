import type { BudgetReport, BudgetState } from '../protocol';
import { budgetUsage, spendOf, worseState, type BudgetSpend } from './budget';

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
