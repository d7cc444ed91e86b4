import { createStore, type StoreApi } from 'zustand/vanilla';
import { applyConnection, applyEnvelope, applyInputs, applyTick, type SpaceInput } from '../sdk/model/apply-envelope';
import type { ConnectionStatus } from '../sdk/model/connection-slice';
import type { ErrorNotice } from '../sdk/model/errors-slice';
import { createSpaceState, type SpaceState } from '../sdk/model/space-state';
import type { SpaceStoreOptions } from '../sdk/model/store-defaults';
import type { StoreEnvelope } from '../sdk/model/store-envelope';

/** What the control room does to its store; everything else is read through selectors. */
export interface SpaceActions {
  /** Applies one received envelope (idempotent by envelope id). */
  ingest(envelope: StoreEnvelope): void;
  /**
   * Applies a batch of envelopes and raw stream frames (the SDK's `stream/data` events) in arrival order, with a
   * single notification; envelopes already seen (a catch-up after a reconnect) change nothing.
   */
  ingestMany(inputs: Iterable<SpaceInput>): void;
  /** Records the transport's status (the SDK client's `status` event); a welcome for me sets `ready` by itself. */
  setConnection(status: ConnectionStatus, detail?: string): void;
  /** Recomputes time-derived states (expiry, pause timeouts, staleness) at `now` (default: the store's clock). */
  tick(now?: number): void;
  /** Returns the queued errors and empties the queue, so each becomes a toast once. */
  takeErrors(): readonly ErrorNotice[];
}

/** The store's state: the space state plus its actions. */
export type SpaceStoreState = SpaceState & SpaceActions;

/** A vanilla zustand store of one space's control-room state; React reads it with `useStore(store, selector)`. */
export type SpaceStore = StoreApi<SpaceStoreState>;

/**
 * Creates the control-room store for one space. Framework-free (zustand/vanilla) and browser-safe.
 *
 * @example
 * const store = createSpaceStore({ me: 'human' });
 * client.on('message', (env) => store.getState().ingest(env));
 * client.on('status', ({ status }) => store.getState().setConnection(status));
 * const stop = startClock(store);
 * // in React: const queue = useStore(store, pendingProposals);
 */
export function createSpaceStore(options: SpaceStoreOptions = {}): SpaceStore {
  const now = options.now ?? Date.now;
  return createStore<SpaceStoreState>()((set, get) => {
    // Only notify when something changed: an ignored or duplicate envelope must not re-render anything.
    const update = (next: SpaceStoreState) => {
      if (next !== get()) set(next, true);
    };
    return {
      ...createSpaceState(options, now()),
      ingest: (envelope) => update(applyEnvelope(get(), envelope, now())),
      ingestMany: (inputs) => update(applyInputs(get(), inputs, now())),
      setConnection: (status, detail) => update(applyConnection(get(), status, detail, now())),
      tick: (at) => update(applyTick(get(), at ?? now())),
      takeErrors: () => {
        const state = get();
        const { queue } = state.errors;
        if (queue.length > 0) set({ errors: { ...state.errors, queue: [] } });
        return queue;
      },
    };
  });
}
