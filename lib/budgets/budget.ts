import type { BudgetLimits, BudgetState } from '../protocol';

// How far into its budget a participant is, shared by the gateway (which enforces budgets) and the control room
// (which shows them). The budgets' wire types (`BudgetLimits`, `BudgetReport`, `BUDGET_PAUSE_REASON`) are in lib/protocol.

/** The share of a budget at which the gateway warns (once per budget setting); at all of it, it pauses. */
export const BUDGET_WARNING_RATIO = 0.8;

/** What a participant has spent, as its latest `participant/status` says. */
export interface BudgetSpend {
  tokens: number;
  /** Unknown unless it reports `cost_usd` or its budget has a price. */
  usd?: number;
}

/** How far into its budget a participant is: the larger share of the limits it has (tokens, money). */
export interface BudgetUsage {
  ratio: number;
  /** Which limit that share is of. */
  by: 'tokens' | 'usd';
  state: BudgetState;
}

const STATE_RANK: Record<BudgetState, number> = { ok: 0, warning: 1, exceeded: 2 };

/** Whether a budget limits anything (a price alone does not). */
export function limitsSomething(limits: BudgetLimits | undefined): limits is BudgetLimits {
  return limits?.tokens !== undefined || limits?.usd !== undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The spend a status reports: tokens are its cumulative `total_tokens`, else its current context (`tokens`); money is
 * its `cost_usd`, else those tokens at `pricePer1kUsd`. Undefined when it reports neither tokens nor cost.
 */
export function spendOf(status: Readonly<Record<string, unknown>>, pricePer1kUsd?: number): BudgetSpend | undefined {
  const tokens = finite(status.total_tokens) ?? finite(status.tokens);
  const cost = finite(status.cost_usd);
  if (tokens === undefined && cost === undefined) return undefined;
  const usd = cost ?? (tokens !== undefined && pricePer1kUsd !== undefined ? (tokens * pricePer1kUsd) / 1000 : undefined);
  return { tokens: tokens ?? 0, ...(usd !== undefined && { usd }) };
}

export function budgetStateOf(ratio: number): BudgetState {
  if (ratio >= 1) return 'exceeded';
  return ratio >= BUDGET_WARNING_RATIO ? 'warning' : 'ok';
}

/** The more severe of two states. */
export function worseState(a: BudgetState, b: BudgetState): BudgetState {
  return STATE_RANK[a] >= STATE_RANK[b] ? a : b;
}

/** How much of the budget the spend uses; undefined when no limited quantity is known (a money budget without a cost). */
export function budgetUsage(limits: BudgetLimits, spend: BudgetSpend): BudgetUsage | undefined {
  const shares: { ratio: number; by: BudgetUsage['by'] }[] = [];
  if (limits.tokens !== undefined) shares.push({ ratio: spend.tokens / limits.tokens, by: 'tokens' });
  if (limits.usd !== undefined && spend.usd !== undefined) shares.push({ ratio: spend.usd / limits.usd, by: 'usd' });
  if (shares.length === 0) return undefined;
  const largest = shares.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  return { ...largest, state: budgetStateOf(largest.ratio) };
}

/** `10 000`: grouped by spaces, the same in every locale (these texts end up in the audit log). */
export function formatTokens(tokens: number): string {
  return String(Math.round(tokens)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

export function formatUsd(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

/** `10 000 of 10 000 tokens` or `$1.02 of $1.00`: the spend against the limit `by` names. */
export function describeSpend(limits: BudgetLimits, spend: BudgetSpend, by: BudgetUsage['by']): string {
  return by === 'usd'
    ? `${formatUsd(spend.usd ?? 0)} of ${formatUsd(limits.usd ?? 0)}`
    : `${formatTokens(spend.tokens)} of ${formatTokens(limits.tokens ?? 0)} tokens`;
}

/** Whether two budget settings limit the same (an alert raised under one does not count under the other). */
export function sameLimits(a: BudgetLimits, b: BudgetLimits): boolean {
  return a.tokens === b.tokens && a.usd === b.usd && a.price_per_1k_tokens_usd === b.price_per_1k_tokens_usd;
}
