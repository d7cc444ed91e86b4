import { afterEach, describe, expect, it, vi } from 'vitest';
import { seconds, withTimeout } from './with-timeout';

describe('withTimeout', () => {
  afterEach(() => vi.useRealTimers());

  it('settles as the promise does when it is in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, 'late')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('refused')), 1000, 'late')).rejects.toThrow('refused');
  });

  it('rejects with its message once the bound has passed', async () => {
    vi.useFakeTimers();
    const never = new Promise<never>(() => undefined);
    const bounded = expect(withTimeout(never, 15_000, `no answer within ${seconds(15_000)}`)).rejects.toThrow('no answer within 15 s');
    await vi.advanceTimersByTimeAsync(15_000);
    await bounded;
  });
});
