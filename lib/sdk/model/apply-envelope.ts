import { reduceChat } from './chat-slice';
import { myWelcome, reduceConnection, setConnectionStatus, type ConnectionStatus } from './connection-slice';
import { reduceLog } from './envelope-log';
import { reduceErrors } from './errors-slice';
import { reduceSecurity } from './security-slice';
import { reduceGrants } from './grants-slice';
import { reduceParticipants, tickParticipants } from './participants-slice';
import { reduceProposals, refreshProposalRisk, tickProposals } from './proposals-slice';
import { addStreamText, addThought, linkReasoningStream, reduceReasoning, replaceThread, type Thought } from './reasoning-slice';
import type { ReduceContext } from './reduce-context';
import type { SpaceState } from './space-state';
import { envelopeTime, isStoreEnvelope, type StoreEnvelope } from './store-envelope';
import { readFrame } from './stream-frame-data';
import { countFrame, reduceStreams } from './streams-slice';
import { reduceTelemetry, tickTelemetry } from './telemetry-slice';
import { reduceTools } from './tools-slice';

/**
 * The store's reducer: applies one envelope at time `now` (epoch ms) and returns the next state. Slices the envelope
 * does not touch keep their identity. Idempotent: an envelope whose id was already applied (a catch-up after a
 * reconnect) returns `state` itself; so does anything that is not an envelope with an id, kind and sender.
 *
 * @example
 * let state = createSpaceState({ me: 'human' });
 * state = applyEnvelope(state, proposalEnvelope, Date.now());
 * pendingProposals(state); // [that proposal]
 */
export function applyEnvelope<S extends SpaceState>(state: S, envelope: StoreEnvelope, now: number): S {
  if (!isStoreEnvelope(envelope) || state.seen.has(envelope.id)) return state;
  state.seen.set(envelope.id, true);
  const seq = state.seq + 1;
  const at = envelopeTime(envelope, now);

  // The welcome goes first: it may tell every other slice who "me" is.
  const welcome = myWelcome(envelope, state.connection, at);
  const base = { now, at, seq, config: state.config };
  const connection = reduceConnection(state.connection, welcome, envelope, { ...base, me: state.connection.me });
  const ctx: ReduceContext = { ...base, me: connection.me };

  const tools = reduceTools(state.tools, envelope, ctx);
  let proposals = reduceProposals(state.proposals, envelope, ctx, tools);
  if (tools.version !== state.tools.version) proposals = refreshProposalRisk(proposals, tools);

  let reasoning = reduceReasoning(state.reasoning, envelope, ctx);
  const { streams, links } = reduceStreams(state.streams, welcome, envelope, ctx, reasoning);
  for (const link of links) reasoning = linkReasoningStream(reasoning, link.reasoningId, link.streamId);

  return {
    ...state,
    seq,
    connection,
    participants: reduceParticipants(state.participants, welcome, envelope, ctx),
    grants: reduceGrants(state.grants, envelope, ctx),
    telemetry: reduceTelemetry(state.telemetry, envelope, ctx),
    tools,
    proposals,
    reasoning,
    streams,
    chat: reduceChat(state.chat, envelope, ctx),
    log: reduceLog(state.log, envelope, seq, now),
    errors: reduceErrors(state.errors, envelope, ctx),
    security: reduceSecurity(state.security, envelope, ctx),
  };
}

/** Applies envelopes in order (a catch-up batch); one resulting state, so one notification in the store. */
export function applyEnvelopes<S extends SpaceState>(state: S, envelopes: Iterable<StoreEnvelope>, now: number): S {
  let next = state;
  for (const envelope of envelopes) next = applyEnvelope(next, envelope, now);
  return next;
}

/**
 * Applies a raw stream frame (`#streamID#data`, spec §3.10.3): counted on its stream, and when the stream carries a
 * reasoning thread, JSON thoughts join the thread (de-duplicated against mirrored `reasoning/thought` envelopes) and
 * plain text is appended to its `streamText`. Frames of unknown streams change nothing.
 */
export function applyStreamData<S extends SpaceState>(state: S, streamId: string, data: string | Uint8Array, now: number): S {
  const streams = countFrame(state.streams, streamId, data.length, now);
  if (streams === state.streams) return state;
  const reasoningId = streams.byId.get(streamId)?.reasoningId;
  let thread = reasoningId !== undefined ? state.reasoning.byId.get(reasoningId) : undefined;
  if (!thread) return { ...state, streams };
  const content = readFrame(data);
  for (const message of content.thoughts) {
    const thought: Thought = { id: `${streamId}:${thread.thoughts.length + thread.droppedThoughts}`, at: now, message, source: 'stream' };
    thread = addThought(thread, thought, state.config.reasoningThoughtsCap, now);
  }
  if (content.text) thread = addStreamText(thread, content.text, now);
  return { ...state, streams, reasoning: replaceThread(state.reasoning, thread) };
}

/**
 * Recomputes the time-derived states at `now`: pending proposals past their deadline expire, pauses whose timeout
 * passed lift, telemetry older than `staleAfterMs` turns stale. Also moves `clock` (countdowns read it).
 */
export function applyTick<S extends SpaceState>(state: S, now: number): S {
  return {
    ...state,
    clock: now,
    proposals: tickProposals(state.proposals, now),
    participants: tickParticipants(state.participants, now),
    telemetry: tickTelemetry(state.telemetry, now, state.config.staleAfterMs),
  };
}

/** Records a transport status change (from the SDK client's `status` event). */
export function applyConnection<S extends SpaceState>(state: S, status: ConnectionStatus, detail: string | undefined, now: number): S {
  const connection = setConnectionStatus(state.connection, status, detail, now);
  return connection === state.connection ? state : { ...state, connection };
}
