import type { SpaceStore } from './space-store';
import { TICK_INTERVAL_MS } from '../sdk/model/store-defaults';

/**
 * Ticks `store` every `intervalMs` (and once now) so expiry, pause timeouts, staleness and countdowns move without
 * new envelopes. Returns a function that stops the clock.
 *
 * @example
 * useEffect(() => startClock(store), [store]);
 */
export function startClock(store: SpaceStore, intervalMs: number = TICK_INTERVAL_MS): () => void {
  store.getState().tick();
  const timer = setInterval(() => store.getState().tick(), intervalMs);
  return () => clearInterval(timer);
}
