import { trimMap, writable } from './collection-utils';
import type { Welcome } from './connection-slice';
import type { ReasoningState } from './reasoning-slice';
import { findReasoningForStream } from './reasoning-stream-link';
import type { ReduceContext } from './reduce-context';
import { CLOSED_STREAMS_CAP } from './store-defaults';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/** Stream requests awaiting their `stream/open`, and open-envelope ids kept for closes; older ones are forgotten. */
const PENDING_REQUESTS_CAP = 200;

/** A stream (spec §3.10), open or recently closed. */
export interface StreamInfo {
  /** The id used in `#streamID#data` frames. */
  id: string;
  owner?: string;
  direction?: string;
  encoding?: string;
  authorizedWriters?: readonly string[];
  target?: readonly string[];
  description?: string;
  /** The `stream/request` and `stream/open` envelopes (absent for streams learnt from the welcome). */
  requestId?: string;
  openId?: string;
  openedAt: number;
  /** The reasoning thread it carries, if linked. */
  reasoningId?: string;
  /** The `stream/close` (no `id`/`by` when the welcome showed it ended while I was disconnected). */
  closed?: { id?: string; by?: string; at: number; reason?: string };
  /** Frames and bytes (UTF-16 units for text) received as raw stream frames. */
  frames: number;
  bytes: number;
  lastFrameAt?: number;
}

/** A `stream/request` not yet answered. */
export interface StreamRequest {
  from: string;
  at: number;
  description?: string;
  reasoningId?: string;
}

/** Streams by id, plus correlation indexes. */
export interface StreamsState {
  byId: ReadonlyMap<string, StreamInfo>;
  requests: ReadonlyMap<string, StreamRequest>;
  /** `stream/open` envelope id → stream id (a close may name the open by `correlation_id`). */
  byOpenId: ReadonlyMap<string, string>;
}

/** A fresh streams slice. */
export function initialStreams(): StreamsState {
  return { byId: new Map(), requests: new Map(), byOpenId: new Map() };
}

/** A link the streams reducer found, for the reasoning slice to record. */
export interface StreamLink {
  streamId: string;
  reasoningId: string;
}

const NO_LINKS: readonly StreamLink[] = [];

/**
 * Applies `stream/request`, `stream/open`, `stream/close` and the welcome's `active_streams`; returns the reasoning
 * links new streams established (rules in `findReasoningForStream`).
 */
export function reduceStreams(
  state: StreamsState,
  welcome: Welcome | undefined,
  envelope: StoreEnvelope,
  ctx: ReduceContext,
  reasoning: ReasoningState,
): { streams: StreamsState; links: readonly StreamLink[] } {
  const unchanged = { streams: state, links: NO_LINKS };
  switch (envelope.kind) {
    case 'stream/request': {
      const { description } = envelope.payload;
      const thread = findReasoningForStream(reasoning, {
        requester: envelope.from,
        correlationIds: correlationIds(envelope),
        context: envelope.context,
        description,
        allowFallback: true,
      });
      const requests = writable(state.requests);
      requests.set(envelope.id, { from: envelope.from, at: ctx.at, description, reasoningId: thread?.id });
      trimMap(requests, PENDING_REQUESTS_CAP);
      return { streams: { ...state }, links: NO_LINKS };
    }
    case 'stream/open': {
      const { payload } = envelope;
      const streamId = payload.stream_id;
      const requestId = correlationIds(envelope).find((id) => state.requests.has(id));
      const request = requestId !== undefined ? state.requests.get(requestId) : undefined;
      const owner = payload.owner ?? request?.from;
      const description = payload.description ?? request?.description;
      const reasoningId =
        request?.reasoningId ??
        findReasoningForStream(reasoning, {
          requester: owner,
          correlationIds: correlationIds(envelope),
          context: envelope.context,
          description,
          allowFallback: true,
        })?.id;
      writable(state.byId).set(streamId, {
        id: streamId,
        owner,
        direction: payload.direction,
        encoding: payload.encoding,
        authorizedWriters: payload.authorized_writers,
        target: payload.target,
        description,
        requestId,
        openId: envelope.id,
        openedAt: ctx.at,
        reasoningId,
        frames: 0,
        bytes: 0,
      });
      if (requestId !== undefined) writable(state.requests).delete(requestId);
      writable(state.byOpenId).set(envelope.id, streamId);
      trimMap(writable(state.byOpenId), PENDING_REQUESTS_CAP + CLOSED_STREAMS_CAP);
      return { streams: { ...state }, links: reasoningId !== undefined ? [{ streamId, reasoningId }] : NO_LINKS };
    }
    case 'stream/close': {
      // Spec §3.10.4 names the stream by correlation to its `stream/open`; our gateway also accepts `stream_id`.
      const streamId =
        envelope.payload?.stream_id ??
        correlationIds(envelope)
          .map((id) => state.byOpenId.get(id))
          .find(Boolean);
      const stream = streamId !== undefined ? state.byId.get(streamId) : undefined;
      if (!stream || stream.closed) return unchanged;
      const byId = writable(state.byId);
      byId.set(stream.id, { ...stream, closed: { id: envelope.id, by: envelope.from, at: ctx.at, reason: envelope.payload?.reason } });
      trimClosed(byId);
      return { streams: { ...state }, links: NO_LINKS };
    }
    case 'system/welcome':
      return welcome ? applyWelcomeStreams(state, welcome, ctx, reasoning) : unchanged;
    default:
      return unchanged;
  }
}

// Open streams are kept whatever their number; closed ones beyond the cap go oldest first.
function trimClosed(byId: Map<string, StreamInfo>): void {
  let closed = 0;
  for (const s of byId.values()) if (s.closed) closed++;
  if (closed <= CLOSED_STREAMS_CAP) return;
  for (const [id, s] of byId) {
    if (closed <= CLOSED_STREAMS_CAP) break;
    if (s.closed) {
      byId.delete(id);
      closed--;
    }
  }
}

// The welcome lists the streams open now: add the ones I missed, close the ones that ended while I was away.
function applyWelcomeStreams(
  state: StreamsState,
  welcome: Welcome,
  ctx: ReduceContext,
  reasoning: ReasoningState,
): { streams: StreamsState; links: readonly StreamLink[] } {
  const byId = writable(state.byId);
  const listed = new Set<string>();
  const links: StreamLink[] = [];
  for (const s of welcome.activeStreams) {
    listed.add(s.stream_id);
    const known = byId.get(s.stream_id);
    if (known && !known.closed) continue;
    const { description } = s;
    const reasoningId = findReasoningForStream(reasoning, { requester: s.owner, description, allowFallback: false })?.id;
    byId.set(s.stream_id, {
      id: s.stream_id,
      owner: s.owner,
      direction: s.direction,
      encoding: s.encoding,
      authorizedWriters: s.authorized_writers,
      target: s.target,
      description,
      openedAt: ctx.at,
      reasoningId,
      frames: 0,
      bytes: 0,
    });
    if (reasoningId !== undefined) links.push({ streamId: s.stream_id, reasoningId });
  }
  for (const s of byId.values()) {
    if (!s.closed && !listed.has(s.id)) byId.set(s.id, { ...s, closed: { at: ctx.at, reason: 'ended_while_disconnected' } });
  }
  trimClosed(byId);
  return { streams: { ...state }, links };
}

/** Counts a frame on its stream; same state for unknown streams. */
export function countFrame(state: StreamsState, streamId: string, size: number, now: number): StreamsState {
  const stream = state.byId.get(streamId);
  if (!stream) return state;
  writable(state.byId).set(streamId, { ...stream, frames: stream.frames + 1, bytes: stream.bytes + size, lastFrameAt: now });
  return { ...state };
}
