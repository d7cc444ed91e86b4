import type { ReduceContext } from './reduce-context';
import { correlationIds, isAddressedTo, num, str, type JsonObject, type StoreEnvelope } from './store-envelope';

/** A `system/error` addressed to me (spec §3.8.2), waiting to be shown once as a toast. */
export interface ErrorNotice {
  /** Increments by one per error ever queued: a UI that prefers not to `takeErrors()` can show those above its last seq. */
  seq: number;
  id: string;
  at: number;
  /** Stable code, e.g. `capability_violation` (DESIGN.md "Gateway error codes"). */
  error: string;
  message?: string;
  /** The envelope(s) at fault (my own sends). */
  correlationIds: readonly string[];
  attemptedKind?: string;
  retryAfterMs?: number;
  payload: JsonObject;
}

/** The toast queue. */
export interface ErrorsState {
  /** Oldest first; emptied by `takeErrors()`. */
  queue: readonly ErrorNotice[];
  /** Seq of the last error queued. */
  lastSeq: number;
  /** Errors dropped because the queue was full (nobody took them). */
  dropped: number;
}

/** The initial error queue. */
export const EMPTY_ERRORS: ErrorsState = { queue: [], lastSeq: 0, dropped: 0 };

/**
 * Queues `system/error`s addressed to me. Before I know who I am, any targeted error counts: the gateway sends
 * each participant only its own.
 */
export function reduceErrors(state: ErrorsState, envelope: StoreEnvelope, ctx: ReduceContext): ErrorsState {
  if (envelope.kind !== 'system/error') return state;
  const mine = ctx.me !== undefined ? isAddressedTo(envelope, ctx.me) : (envelope.to?.length ?? 0) > 0;
  if (!mine) return state;
  const { payload } = envelope;
  const seq = state.lastSeq + 1;
  const notice: ErrorNotice = {
    seq,
    id: envelope.id,
    at: ctx.at,
    error: payload.error,
    message: payload.message,
    correlationIds: correlationIds(envelope),
    // Details are loose in the spec (each code carries its own): read defensively.
    attemptedKind: str(payload.attempted_kind),
    retryAfterMs: num(payload.retry_after_ms),
    payload,
  };
  const overflow = Math.max(0, state.queue.length + 1 - ctx.config.errorQueueCap);
  return { queue: [...state.queue.slice(overflow), notice], lastSeq: seq, dropped: state.dropped + overflow };
}
