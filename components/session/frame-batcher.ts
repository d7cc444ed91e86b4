import type { SpaceStore, StoreEnvelope } from '@/lib/store';

/** While the tab is hidden there are no animation frames; flush on a timer instead so nothing piles up. */
const HIDDEN_FLUSH_MS = 250;

type Item = { envelope: StoreEnvelope } | { streamId: string; data: string | Uint8Array };

/**
 * Feeds the store at most once per animation frame. At hundreds of envelopes a second, applying each one as it
 * arrives would re-render (and re-layout) the control room hundreds of times a second; batching them makes it
 * once per frame, and costs a proposal at most one frame (~16 ms) on its way to the screen. Order is kept:
 * envelopes and stream frames are applied in the order they arrived.
 */
export function createFrameBatcher(store: SpaceStore) {
  let queue: Item[] = [];
  let scheduled = false;

  function flush() {
    scheduled = false;
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

  function push(item: Item) {
    queue.push(item);
    if (scheduled) return;
    scheduled = true;
    if (document.visibilityState === 'visible') requestAnimationFrame(flush);
    else setTimeout(flush, HIDDEN_FLUSH_MS);
  }

  return {
    envelope: (envelope: StoreEnvelope) => push({ envelope }),
    streamData: (streamId: string, data: string | Uint8Array) => push({ streamId, data }),
    /** Applies whatever is queued now (before a catch-up, so history never overtakes live envelopes). */
    flush: () => {
      if (queue.length) flush();
    },
  };
}
