import type { StreamData } from '@/lib/protocol';
import type { SpaceInput, SpaceStore, StoreEnvelope } from '@/lib/store';

/**
 * Envelopes nobody is waiting on are applied at most this often. Every application re-renders (and re-lays out
 * and repaints) the control room, and at hundreds of envelopes a second doing that per envelope or per frame
 * saturates the main thread; ten times a second is still faster than anyone reads a live feed.
 */
const ROUTINE_FLUSH_MS = 100;
/** Urgent envelopes are applied at once, but a burst of them at most once per frame's worth of time. */
const URGENT_MIN_GAP_MS = 16;
/** While the tab is hidden nobody is looking: apply everything at this slower pace. */
const HIDDEN_FLUSH_MS = 250;

/**
 * What a human may be waiting on right now: a new proposal to decide, or anything addressed to me (replies to
 * my requests and controls, gateway errors, chats awaiting my acknowledgement).
 */
function isUrgent(envelope: StoreEnvelope, me: string | undefined): boolean {
  return envelope.kind === 'mcp/proposal' || (me !== undefined && envelope.to?.includes(me) === true);
}

/**
 * Feeds the store in batches: at once when something urgent arrived, otherwise at most every `ROUTINE_FLUSH_MS`.
 * Batches are applied in ordinary tasks, never in animation-frame callbacks: a change made there lands after the
 * frame's scroll handlers have already laid the page out, so the browser would lay it out twice per frame.
 * Order is kept: envelopes and stream frames are applied in the order they arrived, urgent or not (an urgent
 * envelope takes the routine ones queued before it along), each batch as one store update.
 */
export function createEnvelopeBatcher(store: SpaceStore) {
  let queue: SpaceInput[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  let lastFlush = -Infinity;

  function cancel() {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    timerAt = Infinity;
  }

  function flush() {
    cancel();
    lastFlush = performance.now();
    const inputs = queue;
    queue = [];
    store.getState().ingestMany(inputs);
  }

  /** Flushes no later than `lastFlush + gap` (now, if that has passed). */
  function flushWithin(gap: number) {
    const at = lastFlush + gap;
    const now = performance.now();
    if (at <= now) return flush();
    if (at >= timerAt) return; // an earlier flush is already due
    cancel();
    timerAt = at;
    timer = setTimeout(flush, at - now);
  }

  function push(input: SpaceInput, urgent: boolean) {
    queue.push(input);
    if (document.visibilityState !== 'visible') flushWithin(HIDDEN_FLUSH_MS);
    else flushWithin(urgent ? URGENT_MIN_GAP_MS : ROUTINE_FLUSH_MS);
  }

  return {
    envelope: (envelope: StoreEnvelope) => push(envelope, isUrgent(envelope, store.getState().connection.me)),
    streamData: (stream: StreamData) => push(stream, false),
    /** Applies whatever is queued now (before a catch-up, so history never overtakes live envelopes). */
    flush: () => {
      if (queue.length) flush();
    },
    /** Stops any pending flush (the session is ending). */
    dispose: cancel,
  };
}
