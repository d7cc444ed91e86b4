import { reduceChat } from './chat-slice';
import { myWelcome, reduceConnection } from './connection-slice';
import { reduceLog } from './envelope-log';
import { reduceErrors } from './errors-slice';
import { reduceSecurity } from './security-slice';
import { reduceGrants } from './grants-slice';
import { reduceParticipants, tickParticipants } from './participants-slice';
import { reduceProposals, refreshProposalRisk, tickProposals, type Proposal } from './proposals-slice';
import { addStreamText, addThought, linkReasoningStream, reduceReasoning, replaceThread, type Thought } from './reasoning-slice';
import type { StreamData } from '../../protocol';
import type { ReduceContext } from './reduce-context';
import type { SpaceState } from './space-state';
import { envelopeTime, isStoreEnvelope, type StoreEnvelope } from './store-envelope';
import { readFrame } from './stream-frame-data';
import { countFrame, reduceStreams } from './streams-slice';
import { reduceTelemetry, tickTelemetry } from './telemetry-slice';
import { reduceTools } from './tools-slice';

/**
 * The space model's reducer: applies one envelope at time `now` (epoch ms) and returns the next state. Slices the
 * envelope does not touch keep their identity. Idempotent: an envelope whose id was already applied (a catch-up after
 * a reconnect) returns `state` itself; so does anything that is not an envelope with an id, kind and sender.
 *
 * @example
 * let state = createSpaceState({ me: 'human' });
 * state = applyEnvelope(state, proposalEnvelope, Date.now());
 * pendingProposals(state); // [that proposal]
 */
export function applyEnvelope<S extends SpaceState>(state: S, envelope: StoreEnvelope, now: number): S {
  return applyToDraft(state, [envelope], (draft, e) => envelopeInto(draft, e, now));
}

/** Applies envelopes in order (a catch-up batch); one resulting state, so one notification in the store. */
export function applyEnvelopes<S extends SpaceState>(state: S, envelopes: Iterable<StoreEnvelope>, now: number): S {
  return applyToDraft(state, envelopes, (draft, e) => envelopeInto(draft, e, now));
}

/** What the model is fed, in arrival order: a received envelope, or a raw stream frame (the SDK's `stream/data`). */
export type SpaceInput = StoreEnvelope | StreamData;

/** Whether the input is a stream frame (`{streamId, data}`; an envelope has no `streamId`). */
export function isStreamFrame(input: SpaceInput): input is StreamData {
  return typeof input === 'object' && input !== null && 'streamId' in input;
}

/**
 * Applies envelopes and stream frames in arrival order into one resulting state: a busy space's 100 ms batch is
 * thousands of them, and one store notification for the lot (not one per item) is what keeps subscribers cheap.
 */
export function applyInputs<S extends SpaceState>(state: S, inputs: Iterable<SpaceInput>, now: number): S {
  return applyToDraft(state, inputs, (draft, input) => applyInto(draft, input, now));
}

/**
 * Applies a raw stream frame (`#streamID#data`, spec §3.10.3): counted on its stream, and when the stream carries a
 * reasoning thread, JSON thoughts join the thread (de-duplicated against mirrored `reasoning/thought` envelopes) and
 * plain text is appended to its `streamText`. Frames of unknown streams change nothing.
 */
export function applyStreamData<S extends SpaceState>(state: S, streamId: string, data: string | Uint8Array, now: number): S {
  return applyToDraft(state, [data], (draft, d) => streamDataInto(draft, streamId, d, now));
}

/**
 * Applies items to one shallow copy of `state`, made once per batch rather than once per item (copying the whole
 * state for each of a batch's thousands of items was a third of its cost), and returns it only if anything changed.
 * The copy is published to no one until it is returned, so the appliers below may assign its slices in place.
 */
function applyToDraft<S extends SpaceState, T>(state: S, items: Iterable<T>, apply: (draft: SpaceState, item: T) => boolean): S {
  const draft: SpaceState = { ...state };
  let changed = false;
  for (const item of items) if (apply(draft, item)) changed = true;
  return changed ? (draft as S) : state;
}

/**
 * Applies one envelope or stream frame to `draft` in place: a state nobody else reads yet (a batch's copy, or a
 * `ParticipantModel`'s live state, published only as copies). False when it changes nothing.
 */
export function applyInto(draft: SpaceState, input: SpaceInput, now: number): boolean {
  return isStreamFrame(input) ? streamDataInto(draft, input.streamId, input.data, now) : envelopeInto(draft, input, now);
}

/** `applyEnvelope` on an unpublished copy: false when the envelope changes nothing. */
function envelopeInto(draft: SpaceState, envelope: StoreEnvelope, now: number): boolean {
  if (!isStoreEnvelope(envelope) || draft.seen?.has(envelope.id)) return false;
  draft.seen?.set(envelope.id, true);
  const seq = ++draft.seq;
  const at = envelopeTime(envelope, now);

  // The welcome goes first: it may tell every other slice who "me" is.
  const welcome = myWelcome(envelope, draft.connection, at);
  const base = { now, at, seq, config: draft.config };
  draft.connection = reduceConnection(draft.connection, welcome, envelope, { ...base, me: draft.connection.me });
  const ctx: ReduceContext = { ...base, me: draft.connection.me };

  const toolsVersion = draft.tools.version;
  draft.tools = reduceTools(draft.tools, envelope, ctx);
  draft.proposals = reduceProposals(draft.proposals, envelope, ctx, draft.tools);
  if (draft.tools.version !== toolsVersion) draft.proposals = refreshProposalRisk(draft.proposals, draft.tools);

  const screen = draft.config.screen;
  if (screen) draft.reasoning = reduceReasoning(draft.reasoning, envelope, ctx);
  const { streams, links } = reduceStreams(draft.streams, welcome, envelope, ctx, draft.reasoning);
  draft.streams = streams;
  for (const link of links) draft.reasoning = linkReasoningStream(draft.reasoning, link.reasoningId, link.streamId);

  draft.participants = reduceParticipants(draft.participants, welcome, envelope, ctx);
  draft.chat = reduceChat(draft.chat, envelope, ctx);
  if (!screen) return true;
  draft.grants = reduceGrants(draft.grants, envelope, ctx);
  draft.telemetry = reduceTelemetry(draft.telemetry, envelope, ctx);
  draft.log = reduceLog(draft.log, envelope, seq, now, at);
  draft.errors = reduceErrors(draft.errors, envelope, ctx);
  draft.security = reduceSecurity(draft.security, envelope, ctx);
  return true;
}

/** `applyStreamData` on an unpublished copy: false when the frame changes nothing (always, without `screen`). */
function streamDataInto(draft: SpaceState, streamId: string, data: string | Uint8Array, now: number): boolean {
  if (!draft.config.screen) return false;
  const streams = countFrame(draft.streams, streamId, data.length, now);
  if (streams === draft.streams) return false;
  draft.streams = streams;
  const reasoningId = streams.byId.get(streamId)?.reasoningId;
  let thread = reasoningId !== undefined ? draft.reasoning.byId.get(reasoningId) : undefined;
  if (!thread) return true;
  const content = readFrame(data);
  for (const message of content.thoughts) {
    const thought: Thought = { id: `${streamId}:${thread.thoughts.length + thread.droppedThoughts}`, at: now, message, source: 'stream' };
    thread = addThought(thread, thought, draft.config.reasoningThoughtsCap, now);
  }
  if (content.text) thread = addStreamText(thread, content.text, now);
  draft.reasoning = replaceThread(draft.reasoning, thread);
  return true;
}

/**
 * Recomputes the time-derived states at `now`: pending proposals past their deadline expire, pauses whose timeout
 * passed lift, telemetry older than `staleAfterMs` turns stale. Also moves `clock` (countdowns read it).
 */
export function applyTick<S extends SpaceState>(state: S, now: number): S {
  const draft = { ...state };
  tickInto(draft, now);
  return draft;
}

/** `applyTick` in place (see `applyInto`); returns the proposals that expired. */
export function tickInto(draft: SpaceState, now: number): readonly Proposal[] {
  const { state: proposals, expired } = tickProposals(draft.proposals, now);
  draft.clock = now;
  draft.proposals = proposals;
  draft.participants = tickParticipants(draft.participants, now);
  if (draft.config.screen) draft.telemetry = tickTelemetry(draft.telemetry, now, draft.config.staleAfterMs);
  return expired;
}
