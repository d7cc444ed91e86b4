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
export * from './store-defaults';
export {
  correlationIds,
  envelopeTime,
  isAddressedTo,
  isRecord,
  isStoreEnvelope,
  parseTime,
  type JsonObject,
  type StoreEnvelope,
} from './store-envelope';
export * from './connection-slice';
export * from './participants-slice';
export * from './grants-slice';
export * from './telemetry-slice';
export * from './tools-slice';
export * from './proposals-slice';
export * from './reasoning-slice';
export * from './reasoning-stream-link';
export { readFrame, type FrameContent } from './stream-frame-data';
export * from './streams-slice';
export * from './chat-slice';
export * from './envelope-log';
export * from './errors-slice';
export * from './space-state';
export * from './apply-envelope';
export { memoSelector } from './memo-selector';
export * from './proposal-selectors';
export * from './log-selectors';
export * from './space-selectors';
export * from './space-store';
export * from './space-clock';
