import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SpaceInput } from '../sdk/model/apply-envelope';
import type { ConnectionStatus } from '../sdk/model/connection-slice';
import type { ErrorNotice } from '../sdk/model/errors-slice';
import type { SpaceState } from '../sdk/model/space-state';
import type { SpaceStoreOptions } from '../sdk/model/store-defaults';
import type { StoreEnvelope } from '../sdk/model/store-envelope';
import { ParticipantModel } from '../sdk/participant-model';

/** What the control room does to its store; everything else is read through selectors. */
export interface SpaceActions {
  /** Applies one received envelope (idempotent by envelope id) and publishes. */
  ingest(envelope: StoreEnvelope): void;
  /**
   * Applies a batch of envelopes and raw stream frames (the SDK's `stream/data` events) in arrival order, with a
   * single notification; envelopes already seen (a catch-up after a reconnect) change nothing.
   */
  ingestMany(inputs: Iterable<SpaceInput>): void;
  /** Publishes what the model applied since the last notification (its owner, a participant, fed it); one notification. */
  publish(): void;
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

/** `createSpaceStore`'s options: the model's (when it makes its own), or the live model it views. */
export type SpaceStoreSource = SpaceStoreOptions & {
  /** The model to view: the browser participant's (`participant.spaceModel`), which it feeds; else the store makes one. */
  model?: ParticipantModel;
};

/**
 * Creates the control-room store for one space: a batched view of a `ParticipantModel`. The model applies every
 * envelope in place as it arrives (the browser participant feeds its own); the store publishes a copy of its state
 * when told to (`publish`, after each `ingest`, `tick`…), and only when the model moved, so React re-renders once
 * per batch and an ignored or duplicate envelope re-renders nothing. Framework-free (zustand/vanilla) and
 * browser-safe. Between two publications the Maps inside the published slices already hold what the model applied
 * since: read them by id for the latest (a decision re-reads its proposal so), through memoised selectors for a
 * consistent view.
 *
 * @example
 * const participant = new MEWParticipant({ gateway, space, token, spaceModel: { screen: true } });
 * const store = createSpaceStore({ model: participant.spaceModel });
 * participant.client.on('message', () => store.getState().publish()); // batched in the control room
 * const stop = startClock(store);
 * // in React: const queue = useStore(store, pendingProposals);
 */
export function createSpaceStore(source: SpaceStoreSource = {}): SpaceStore {
  const now = source.now ?? Date.now;
  const model = source.model ?? new ParticipantModel(source);
  let published = model.version;
  return createStore<SpaceStoreState>()((set) => {
    // Only notify when the model moved: an ignored or duplicate envelope must not re-render anything.
    const publish = () => {
      if (model.version === published) return;
      published = model.version;
      set({ ...model.state });
    };
    return {
      ...model.state,
      ingest: (envelope) => {
        model.observe(envelope, now());
        publish();
      },
      ingestMany: (inputs) => {
        const at = now();
        for (const input of inputs) model.observe(input, at);
        publish();
      },
      publish,
      setConnection: (status, detail) => {
        model.setConnection(status, detail, now());
        publish();
      },
      tick: (at) => {
        model.tick(at ?? now());
        publish();
      },
      takeErrors: () => {
        const queue = model.takeErrors();
        publish();
        return queue;
      },
    };
  });
}
