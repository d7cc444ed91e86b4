import { reasoningAction, reasoningText, type ReasoningAction } from '../../protocol';
import { trimMapAmortized, writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { STREAM_TEXT_CAP, THOUGHT_MIRROR_WINDOW } from './store-defaults';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/** `live` until a `reasoning/conclusion` or `reasoning/cancel` names the thread. */
export type ReasoningStatus = 'live' | 'concluded' | 'cancelled';

/** One step of a reasoning thread. */
export interface Thought {
  /** The `reasoning/thought` envelope id, or `<streamId>:<n>` for a thought read from a stream frame. */
  id: string;
  at: number;
  /** Its words: the spec's `message`, or the reference implementation's `reasoning` (empty when it has none). */
  message: string;
  /** The step's action, when the thought names one (the reference implementation's ReAct thoughts do). */
  action?: ReasoningAction;
  source: 'envelope' | 'stream';
  /** Also seen from the other source (the SDK mirrors thoughts into the reasoning stream); shown once. */
  mirrored?: boolean;
}

/** A reasoning sequence (spec §3.5): the `reasoning/start` id is the `context` of what follows. */
export interface ReasoningThread {
  /** The `reasoning/start` envelope id. */
  id: string;
  from: string;
  /** The start's `correlation_id`: what it reasons about (a request, proposal or chat). */
  correlatedTo: readonly string[];
  /** The start's own context, for nested sequences. */
  context?: string;
  startedAt: number;
  /** What it reasons about: the start's `message` (the reference implementation's: its `input`). */
  message?: string;
  /** Oldest first, at most `reasoningThoughtsCap`. */
  thoughts: readonly Thought[];
  /** Thoughts dropped to respect the cap. */
  droppedThoughts: number;
  state: ReasoningStatus;
  /** Its `message`, if it said one (the reference implementation's conclusions are often `{}`). */
  conclusion?: { id: string; message?: string; at: number };
  cancel?: { id: string; by: string; reason?: string; at: number };
  /** The stream its high-volume trace flows in, once linked (see `reasoning-stream-link.ts`). */
  streamId?: string;
  /** Plain-text stream output (frames that are not JSON thoughts), the last `STREAM_TEXT_CAP` characters. */
  streamText: string;
  updatedAt: number;
}

/** Reasoning threads by start id (insertion order). */
export interface ReasoningState {
  byId: ReadonlyMap<string, ReasoningThread>;
  /** Internal: size at which the next trim to `reasoningThreadsCap` is attempted (see `trimMapAmortized`). */
  trimFloor: number;
}

/** A fresh reasoning slice. */
export function initialReasoning(): ReasoningState {
  return { byId: new Map(), trimFloor: 0 };
}

/**
 * The thread a `context` names: the exact start id, else the deepest path segment that is one (spec §3.1: contexts
 * are slash paths, so `"workflow-1/reason-start-1"` still joins `reason-start-1`).
 */
export function threadForContext(state: ReasoningState, context: string | undefined): ReasoningThread | undefined {
  if (!context) return undefined;
  const exact = state.byId.get(context);
  if (exact || !context.includes('/')) return exact;
  const segments = context.split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const thread = state.byId.get(segments[i]);
    if (thread) return thread;
  }
  return undefined;
}

function threadOf(state: ReasoningState, envelope: StoreEnvelope): ReasoningThread | undefined {
  // `context` MUST name the start (spec §3.5.5); a `correlation_id` naming it is accepted as a fallback.
  return (
    threadForContext(state, envelope.context) ??
    correlationIds(envelope)
      .map((id) => state.byId.get(id))
      .find(Boolean)
  );
}

/**
 * Adds a thought unless it mirrors a recent one from the other source (same message), which is then only marked
 * `mirrored`. Keeps at most `cap` thoughts.
 */
export function addThought(thread: ReasoningThread, thought: Thought, cap: number, at: number): ReasoningThread {
  const thoughts = thread.thoughts;
  for (let i = thoughts.length - 1; i >= Math.max(0, thoughts.length - THOUGHT_MIRROR_WINDOW); i--) {
    const t = thoughts[i];
    if (!t.mirrored && t.source !== thought.source && t.message === thought.message) {
      const next = thoughts.slice();
      next[i] = { ...t, mirrored: true };
      return { ...thread, thoughts: next, updatedAt: at };
    }
  }
  const drop = Math.max(0, thoughts.length + 1 - cap);
  const next = thoughts.slice(drop);
  next.push(thought);
  return { ...thread, thoughts: next, droppedThoughts: thread.droppedThoughts + drop, updatedAt: at };
}

/** Appends plain stream text, keeping the tail. */
export function addStreamText(thread: ReasoningThread, text: string, at: number): ReasoningThread {
  const joined = thread.streamText + text;
  return { ...thread, streamText: joined.length > STREAM_TEXT_CAP ? joined.slice(joined.length - STREAM_TEXT_CAP) : joined, updatedAt: at };
}

/** Applies `reasoning/start`, `thought`, `conclusion` and `cancel`. */
export function reduceReasoning(state: ReasoningState, envelope: StoreEnvelope, ctx: ReduceContext): ReasoningState {
  const byId = writable(state.byId);
  switch (envelope.kind) {
    case 'reasoning/start': {
      if (byId.has(envelope.id)) return state;
      const thread: ReasoningThread = {
        id: envelope.id,
        from: envelope.from,
        correlatedTo: correlationIds(envelope),
        context: envelope.context,
        startedAt: ctx.at,
        message: reasoningText(envelope.payload),
        thoughts: [],
        droppedThoughts: 0,
        state: 'live',
        streamText: '',
        updatedAt: ctx.at,
      };
      byId.set(thread.id, thread);
      // Live threads are never dropped; finished ones go oldest first.
      const { floor } = trimMapAmortized(byId, ctx.config.reasoningThreadsCap, (t) => t.state === 'live', state.trimFloor);
      return { byId, trimFloor: floor };
    }
    case 'reasoning/thought': {
      const thread = threadOf(state, envelope);
      if (!thread) return state;
      const action = reasoningAction(envelope.payload);
      const thought: Thought = { id: envelope.id, at: ctx.at, message: reasoningText(envelope.payload) ?? '', source: 'envelope', ...(action && { action }) };
      return replaceThread(state, addThought(thread, thought, ctx.config.reasoningThoughtsCap, ctx.at));
    }
    case 'reasoning/conclusion': {
      const thread = threadOf(state, envelope);
      if (!thread || thread.state === 'cancelled') return state;
      const conclusion = { id: envelope.id, message: reasoningText(envelope.payload), at: ctx.at };
      return replaceThread(state, { ...thread, state: 'concluded', conclusion, updatedAt: ctx.at });
    }
    case 'reasoning/cancel': {
      const thread = threadOf(state, envelope);
      if (thread?.state !== 'live') return state;
      const cancel = { id: envelope.id, by: envelope.from, reason: envelope.payload?.reason, at: ctx.at };
      return replaceThread(state, { ...thread, state: 'cancelled', cancel, updatedAt: ctx.at });
    }
    default:
      return state;
  }
}

/** Records that `streamId` carries the trace of `threadId`. */
export function linkReasoningStream(state: ReasoningState, threadId: string, streamId: string): ReasoningState {
  const thread = state.byId.get(threadId);
  if (!thread || thread.streamId === streamId) return state;
  return replaceThread(state, { ...thread, streamId });
}

/** Stores an updated thread. */
export function replaceThread(state: ReasoningState, thread: ReasoningThread): ReasoningState {
  writable(state.byId).set(thread.id, thread);
  return { ...state };
}
