import { describe, expect, it } from 'vitest';
import type { BudgetReport } from '../protocol';
import { budgetUsage, describeSpend, formatTokens, spendOf } from './budget';
import { currentBudget } from './budget-report';

describe('budgets', () => {
  it('count cumulative tokens when reported, else the context in use; money as reported, else priced tokens', () => {
    expect(spendOf({ tokens: 900, total_tokens: 12_000 })).toEqual({ tokens: 12_000 });
    expect(spendOf({ tokens: 900 }, 0.5)).toEqual({ tokens: 900, usd: 0.45 });
    expect(spendOf({ total_tokens: 1000, cost_usd: 3 }, 0.5)).toEqual({ tokens: 1000, usd: 3 });
    expect(spendOf({ messages_in_context: 3 })).toBeUndefined();
  });

  it('measure the larger share of the limits they have, warning from 80 % and exceeded from 100 %', () => {
    expect(budgetUsage({ tokens: 10_000 }, { tokens: 7_999 })).toEqual({ ratio: 0.7999, by: 'tokens', state: 'ok' });
    expect(budgetUsage({ tokens: 10_000, usd: 1 }, { tokens: 5_000, usd: 0.8 })).toEqual({ ratio: 0.8, by: 'usd', state: 'warning' });
    expect(budgetUsage({ tokens: 10_000, usd: 1 }, { tokens: 10_000 })).toMatchObject({ by: 'tokens', state: 'exceeded' });
    expect(budgetUsage({ usd: 1 }, { tokens: 10_000 })).toBeUndefined();
  });

  it('describe spend the same in every locale', () => {
    expect(formatTokens(1_234_567.4)).toBe('1 234 567');
    expect(describeSpend({ tokens: 10_000 }, { tokens: 8_200 }, 'tokens')).toBe('8 200 of 10 000 tokens');
    expect(describeSpend({ usd: 1 }, { tokens: 0, usd: 1.004 }, 'usd')).toBe('$1.00 of $1.00');
  });
});

describe('a budget report', () => {
  const report: BudgetReport = { participant: 'agent', tokens: 10_000, spent_tokens: 2_000, state: 'ok', set_by: 'human', source: 'runtime' };

  it('is brought up to date by a newer status, keeping the state the server remembers when it is worse', () => {
    expect(currentBudget(report)).toEqual({ spend: { tokens: 2_000 }, ratio: 0.2, state: 'ok' });
    expect(currentBudget(report, { messages_in_context: 1, total_tokens: 8_200 })).toEqual({ spend: { tokens: 8_200 }, ratio: 0.82, state: 'warning' });
    expect(currentBudget({ ...report, state: 'exceeded' }, { messages_in_context: 1, total_tokens: 0 }).state).toBe('exceeded');
  });
});
