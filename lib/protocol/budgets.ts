import { z } from 'zod';

// Participants' budgets as the budgets API serves them (`GET /api/spaces/{space}/budgets`,
// `GET`/`PUT`/`DELETE …/budgets/{participant}`) and the pause the gateway sends when one is spent.

/** The code a budget pause's reason starts with (`budget_exhausted: 10 000 of 10 000 tokens`); also the compact's reason. */
export const BUDGET_PAUSE_REASON = 'budget_exhausted';

/**
 * A participant's budget: tokens and/or US dollars, and the price that turns its tokens into money when it does not
 * report `cost_usd` itself. The same shape in the space config, the budgets API (`PUT` body) and the database.
 */
export const budgetLimitsSchema = z.strictObject({
  tokens: z.number().int('a whole number of tokens').positive('must be above 0').optional(),
  usd: z.number().positive('must be above 0').finite().optional(),
  price_per_1k_tokens_usd: z.number().nonnegative('cannot be negative').finite().optional(),
});

export type BudgetLimits = z.infer<typeof budgetLimitsSchema>;

/** `warning` from 80 % of the budget, `exceeded` at all of it. */
export type BudgetState = 'ok' | 'warning' | 'exceeded';

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

/** The body of `GET /api/spaces/{space}/budgets`. */
export interface BudgetList {
  budgets: BudgetReport[];
}

/** The body of `GET`/`PUT`/`DELETE …/budgets/{participant}`: its budget after the change, or null when it has none. */
export interface BudgetAnswer {
  budget: BudgetReport | null;
}
