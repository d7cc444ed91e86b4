import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('allows a burst, then refuses with the wait until the next token, then refills over time', () => {
    const bucket = new TokenBucket(10, 3);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0]);
    expect(bucket.take()).toBe(100);
    vi.advanceTimersByTime(100);
    expect(bucket.take()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0, 100]);
  });
});
