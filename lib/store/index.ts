/**
 * The control room's state (DESIGN.md "The control room"): framework-free zustand stores derived only from the
 * envelopes the browser participant sees. `createSpaceStore` holds one space; the reducers (`applyEnvelope`,
 * `applyTick`, …) can be used without it; selectors are memoised so they are safe in `useStore(store, selector)`.
 *
 * Conventions: a slice object (and each entity in it: a `Proposal`, a `ParticipantState`, …) is replaced when it
 * changes and keeps its identity otherwise; the `Map`s and rings inside slices are the store's own, updated in
 * place for O(1) ingestion, so read them, never write them. Times are epoch ms, taken from the envelope's `ts`.
 *
 * @example
 * import { createSpaceStore, pendingProposals, startClock } from '@/lib/store';
 * const store = createSpaceStore({ me: 'human' });
 * client.on('message', (env) => store.getState().ingest(env));
 * const stop = startClock(store);
 * pendingProposals(store.getState());
 */
export * from '../sdk/model';
export * from './space-store';
export * from './space-clock';
