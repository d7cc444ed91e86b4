/**
 * The control room's state (DESIGN.md "The control room"): a framework-free zustand store per space that views the
 * browser participant's live model (`ParticipantModel`, lib/sdk/model's reducers and one configuration), publishing
 * it in batches, so the screen and the SDK never disagree. A store without a participant makes a model of its own
 * (`ingest`, `ingestMany`); the reducers (`applyEnvelope`, `applyTick`, …) can be used without it; selectors are
 * memoised so they are safe in `useStore(store, selector)`.
 *
 * Conventions: a slice object (and each entity in it: a `Proposal`, a `ParticipantState`, …) is replaced when it
 * changes and keeps its identity otherwise; the `Map`s and rings inside slices are the model's own, updated in
 * place for O(1) ingestion (so between two publications they already hold what the model applied since), so read
 * them, never write them. Times are epoch ms, taken from the envelope's `ts`.
 *
 * @example
 * import { createSpaceStore, pendingProposals, startClock } from '@/lib/store';
 * const participant = new MEWParticipant({ gateway, space, token, spaceModel: { screen: true } });
 * const store = createSpaceStore({ model: participant.spaceModel });
 * participant.client.on('message', () => store.getState().publish());
 * const stop = startClock(store);
 * pendingProposals(store.getState());
 */
export * from '../sdk/model';
export * from './space-store';
export * from './space-clock';
