import { describe, expect, it } from 'vitest';
import { backoffDelay, type Backoff } from './backoff';

const DOUBLING: Backoff = { minDelayMs: 100, maxDelayMs: 1_000, exponent: 2, jitterRatio: 0 };

describe('backoffDelay', () => {
  it('starts at the minimum, grows by the exponent, and stays at the cap however many attempts fail', () => {
    expect([0, 1, 2, 3, 4, 5, 10_000].map((attempt) => backoffDelay(attempt, DOUBLING))).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    expect(backoffDelay(-1, DOUBLING)).toBe(100);
  });

  it('without a cap keeps growing (callers that stop after a few attempts)', () => {
    expect(backoffDelay(3, { ...DOUBLING, maxDelayMs: Infinity })).toBe(800);
  });

  it('jitters each wait down by up to the jitter ratio, so the cap still holds', () => {
    const jittered = { ...DOUBLING, jitterRatio: 0.25 };
    expect(backoffDelay(0, jittered, () => 0)).toBe(100);
    expect(backoffDelay(0, jittered, () => 1)).toBe(75);
    const spread = Array.from({ length: 200 }, () => backoffDelay(9, jittered));
    expect(Math.max(...spread)).toBeLessThanOrEqual(1_000);
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(750);
    expect(new Set(spread).size).toBeGreaterThan(10);
  });
});
