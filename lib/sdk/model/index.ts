/**
 * The model of a space, derived only from the envelopes a participant sees: proposals, participants, grants,
 * telemetry, tools, reasoning, streams, chat, the envelope log and gateway errors. Pure reducers (`applyEnvelope`,
 * `applyTick`, …) over plain state, framework-free and isomorphic, with one configuration (store-defaults.ts). A
 * participant keeps it live (`ParticipantModel`, lib/sdk/participant-model.ts): its SDK views (e.g. `proposals`)
 * read it, and the control room's zustand store (lib/store) publishes the browser participant's, so an agent and a
 * dashboard derive the same states. It lives under lib/sdk because the SDK needs it and lib/sdk sits below lib/store.
 *
 * Conventions: a slice object (and each entity in it) is replaced when it changes and keeps its identity otherwise;
 * the Maps and rings inside slices are updated in place for O(1) ingestion, so read them, never write them. Times
 * are epoch ms, taken from the envelope's `ts`.
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
export * from './security-slice';
export * from './space-state';
export * from './apply-envelope';
export { memoSelector } from './memo-selector';
export * from './proposal-selectors';
export * from './log-selectors';
export * from './space-selectors';
