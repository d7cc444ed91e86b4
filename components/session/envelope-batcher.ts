import type { SpaceStore, StoreEnvelope } from '@/lib/store';

/**
 * Envelopes nobody is waiting on are published at most this often. Every publication re-renders (and re-lays out
 * and repaints) the control room, and at hundreds of envelopes a second doing that per envelope or per frame
 * saturates the main thread; ten times a second is still faster than anyone reads a live feed.
 */
const ROUTINE_FLUSH_MS = 100;
/** Urgent envelopes are published at once, but a burst of them at most once per frame's worth of time. */
const URGENT_MIN_GAP_MS = 16;
/** While the tab is hidden nobody is looking: publish everything at this slower pace. */
const HIDDEN_FLUSH_MS = 250;

/**
 * What a human may be waiting on right now: a new proposal to decide, or anything addressed to me (replies to
 * my requests and controls, gateway errors, chats awaiting my acknowledgement).
 */
function isUrgent(envelope: StoreEnvelope, me: string | undefined): boolean {
  return envelope.kind === 'mcp/proposal' || (me !== undefined && envelope.to?.includes(me) === true);
}

/**
 * Publishes the store in batches: the browser participant applies every envelope to its model as it arrives, and
 * the store's subscribers hear of it at once when something urgent arrived, otherwise at most every
 * `ROUTINE_FLUSH_MS`. Publications happen in ordinary tasks, never in animation-frame callbacks: a change made there
 * lands after the frame's scroll handlers have already laid the page out, so the browser would lay it out twice per
 * frame. Each publication is one store update, whatever arrived since the last.
 */
export function createEnvelopeBatcher(store: SpaceStore) {
  let arrived = false;
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
    arrived = false;
    store.getState().publish();
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

  function push(urgent: boolean) {
    arrived = true;
    if (document.visibilityState !== 'visible') flushWithin(HIDDEN_FLUSH_MS);
    else flushWithin(urgent ? URGENT_MIN_GAP_MS : ROUTINE_FLUSH_MS);
  }

  return {
    /** An envelope arrived (the model has it): publish at once if urgent, else with the next batch. */
    envelope: (envelope: StoreEnvelope) => push(isUrgent(envelope, store.getState().connection.me)),
    /** A stream frame arrived (the model counted it). */
    streamData: () => push(false),
    /** Publishes now whatever arrived. */
    flush: () => {
      if (arrived) flush();
    },
    /** Stops any pending publication (the session is ending). */
    dispose: cancel,
  };
}
