/**
 * How long to wait before retrying something that failed, the one algorithm of the project: the SDK's reconnects
 * (`reconnect-backoff.ts`), tool discovery's retries, the launcher's process restarts and webhook deliveries all
 * compute their waits here, each with its own tuning. Isomorphic: the browser bundles it.
 */

/** The tuning of a backoff. Times in ms. Each user names its defaults as constants (e.g. `RECONNECT_*` in `sdk-defaults`). */
export interface Backoff {
  /** The wait before the first retry (attempt 0), before jitter. */
  minDelayMs: number;
  /** Cap of the wait, before jitter: past it every attempt waits about the cap. `Infinity` for none. */
  maxDelayMs: number;
  /** Growth of the wait per failed attempt (2 doubles it). */
  exponent: number;
  /**
   * Share of each wait that is randomised, downwards only (0.5: between 50% and 100% of the computed wait, so the cap
   * holds), so that what failed together does not retry together. 0 for a fixed schedule.
   */
  jitterRatio: number;
}

/**
 * The wait before retry `attempt` (0 for the first): `minDelayMs · exponent^attempt`, capped at `maxDelayMs`, then
 * jittered down by up to `jitterRatio`. Never gives up: that is the caller's decision.
 *
 * @example
 * backoffDelay(0, { minDelayMs: 500, maxDelayMs: 30_000, exponent: 1.5, jitterRatio: 0.5 }); // 250–500 ms
 * backoffDelay(3, { minDelayMs: 1_000, maxDelayMs: Infinity, exponent: 2, jitterRatio: 0 }); // 8000 ms
 */
export function backoffDelay(attempt: number, backoff: Readonly<Backoff>, random: () => number = Math.random): number {
  const capped = Math.min(backoff.minDelayMs * backoff.exponent ** Math.max(0, attempt), backoff.maxDelayMs);
  return Math.round(capped * (1 - backoff.jitterRatio * random()));
}
