/**
 * One numbered envelope of a space's history, as the gateway keeps it for catch-up. `seq` increases by one for
 * every envelope the space routes or emits (targeted ones included), so a client's cursor names a point in it.
 */
export interface HistoryEntry {
  seq: number;
  /** The envelope exactly as delivered (JSON text, `cursor` included). */
  data: string;
  /** `data` already encoded as UTF-8, when the gateway has it (a store writing bytes need not encode it again). */
  bytes?: Buffer;
  /** Gateway receive time, ms since epoch (`?since=` filters on it, never on the sender's `ts`). */
  receivedAt: number;
  /** Gateway-targeted envelopes (welcome, error, invite-ack): only these participants may read them back. */
  visibleTo?: readonly string[];
}

/** What a space's history holds when the gateway starts: its epoch and the newest retained entries. */
export interface LoadedHistory {
  /**
   * Names this numbering. A new one is made when a space's history starts from nothing (new database, history
   * lost), so a cursor from an older numbering is recognised instead of being misread as a position in this one.
   */
  epoch: string;
  /** The newest entries, at most `limit`, oldest first; numbering continues after the last. */
  entries: HistoryEntry[];
}

/**
 * Where a space's numbered history outlives the process. The gateway numbers and serves history from memory;
 * the store only persists it, writing in batches off the message path, so `append` must never block or throw.
 */
export interface HistoryStore {
  load(spaceId: string, limit: number): LoadedHistory;
  /** Queues the entry for a batched write; entries beyond the retained `limit` given to `load` may be pruned. */
  append(spaceId: string, entry: HistoryEntry): void;
  /** Writes everything queued and records that this run ended cleanly (its numbering may continue). */
  close(): void | Promise<void>;
}
