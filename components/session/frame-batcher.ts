import type { SpaceStore, StoreEnvelope } from '@/lib/store';

/**
 * Envelopes nobody is waiting on are applied at most this often. Every application re-renders (and repaints)
 * the control room, and at hundreds of envelopes a second doing that each frame saturates the main thread;
 * ten times a second is still faster than anyone reads a live feed.
 */
const ROUTINE_FLUSH_MS = 100;
/** While the tab is hidden there are no animation frames; flush on a timer instead so nothing piles up. */
const HIDDEN_FLUSH_MS = 250;

type Item = { envelope: StoreEnvelope } | { streamId: string; data: string | Uint8Array };

/**
 * What a human may be waiting on right now: a new proposal to decide, or anything addressed to me (replies to
 * my requests and controls, gateway errors, chats awaiting my acknowledgement). These reach the screen on the
 * next animation frame; everything else waits for the routine flush.
 */
function isUrgent(envelope: StoreEnvelope, me: string | undefined): boolean {
  return envelope.kind === 'mcp/proposal' || (me !== undefined && envelope.to?.includes(me) === true);
}

/**
 * Feeds the store in batches: on the next animation frame when something urgent arrived, otherwise at most every
 * `ROUTINE_FLUSH_MS`. Order is kept: envelopes and stream frames are applied in the order they arrived, urgent or
 * not (an urgent envelope flushes the routine ones queued before it).
 */
export function createFrameBatcher(store: SpaceStore) {
  let queue: Item[] = [];
  let frame: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastFlush = -Infinity;

  function cancel() {
    if (frame !== undefined) cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
    frame = timer = undefined;
  }

  function flush() {
    cancel();
    lastFlush = performance.now();
    const items = queue;
    queue = [];
    const state = store.getState();
    let run: StoreEnvelope[] = [];
    for (const item of items) {
      if ('envelope' in item) {
        run.push(item.envelope);
        continue;
      }
      if (run.length) state.ingestMany(run);
      run = [];
      state.ingestStreamData(item.streamId, item.data);
    }
    if (run.length) state.ingestMany(run);
  }

  function schedule(urgent: boolean) {
    if (document.visibilityState !== 'visible') {
      // A requested frame may never come while hidden; a timer always does.
      if (timer === undefined) timer = setTimeout(flush, HIDDEN_FLUSH_MS);
      return;
    }
    if (frame !== undefined) return; // a frame is already coming: nothing sooner exists
    const wait = urgent ? 0 : lastFlush + ROUTINE_FLUSH_MS - performance.now();
    if (wait <= 0) {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      frame = requestAnimationFrame(flush);
    } else if (timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        if (document.visibilityState === 'visible') frame = requestAnimationFrame(flush);
        else flush();
      }, wait);
    }
  }

  function push(item: Item, urgent: boolean) {
    queue.push(item);
    schedule(urgent);
  }

  return {
    envelope: (envelope: StoreEnvelope) => push({ envelope }, isUrgent(envelope, store.getState().connection.me)),
    streamData: (streamId: string, data: string | Uint8Array) => push({ streamId, data }, false),
    /** Applies whatever is queued now (before a catch-up, so history never overtakes live envelopes). */
    flush: () => {
      if (queue.length) flush();
    },
    /** Stops any pending flush (the session is ending). */
    dispose: cancel,
  };
}
