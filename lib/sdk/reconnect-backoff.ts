import { backoffDelay, type Backoff } from './backoff';
import {
  RECONNECT_DELAY_EXPONENT,
  RECONNECT_HIDDEN_DELAY_FACTOR,
  RECONNECT_HIDDEN_MAX_DELAY_MS,
  RECONNECT_JITTER_RATIO,
  RECONNECT_MAX_DELAY_MS,
  RECONNECT_MIN_DELAY_MS,
} from './sdk-defaults';

/**
 * Tuning of `MEWClient`'s reconnect delays: the project's one `Backoff`, plus a slower schedule while the tab is
 * hidden. Every field defaults to the constant of the same name in `sdk-defaults`.
 */
export interface BackoffOptions extends Backoff {
  /** Cap of the delay while the browser tab is hidden. */
  hiddenMaxDelayMs: number;
  /** A hidden tab waits this many times longer than a visible one at the same attempt. */
  hiddenDelayFactor: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  minDelayMs: RECONNECT_MIN_DELAY_MS,
  maxDelayMs: RECONNECT_MAX_DELAY_MS,
  hiddenMaxDelayMs: RECONNECT_HIDDEN_MAX_DELAY_MS,
  hiddenDelayFactor: RECONNECT_HIDDEN_DELAY_FACTOR,
  exponent: RECONNECT_DELAY_EXPONENT,
  jitterRatio: RECONNECT_JITTER_RATIO,
});

/**
 * The wait before reconnect attempt `attempt` (0 for the first retry): `backoffDelay` with the visible schedule, or
 * while the tab is hidden with `hiddenDelayFactor` times the delays up to `hiddenMaxDelayMs`. Jittered down by up to
 * `jitterRatio` so a crowd of clients spreads out. Never gives up: past the cap every attempt waits about the cap.
 *
 * @example
 * reconnectDelay(0, { hidden: false }); // between 250 and 500 ms with the defaults
 * reconnectDelay(20, { hidden: true }); // between 2.5 and 5 minutes
 */
export function reconnectDelay(
  attempt: number,
  { hidden, random = Math.random, options = DEFAULT_BACKOFF }: { hidden: boolean; random?: () => number; options?: Readonly<BackoffOptions> },
): number {
  const schedule = hidden ? { ...options, minDelayMs: options.minDelayMs * options.hiddenDelayFactor, maxDelayMs: options.hiddenMaxDelayMs } : options;
  return backoffDelay(attempt, schedule, random);
}

/**
 * Whether the page is a hidden browser tab. False outside browsers (no `document`), so Node clients use the
 * visible schedule.
 *
 * @example
 * const hidden = isDocumentHidden();
 */
export function isDocumentHidden(): boolean {
  return (globalThis as { document?: { visibilityState?: string } }).document?.visibilityState === 'hidden';
}
