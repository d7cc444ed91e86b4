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

/**
 * A numbering a space used before the current one, still readable: cursors `<epoch>-<seq>` with `firstSeq <= seq <=
 * lastSeq` name the same positions in the current numbering (numbers only ever grow across epochs).
 */
export interface PastEpoch {
  epoch: string;
  firstSeq: number;
  lastSeq: number;
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
  /**
   * Where numbering continues when it is past the newest entry (entries pruned or never kept): the newest seq this
   * numbering ever issued that is known to be written. @default the last entry's seq
   */
  lastSeq?: number;
  /** Earlier numberings whose cursors still mean what they meant (after an unclean stop). @default none */
  pastEpochs?: readonly PastEpoch[];
}

/**
 * Where a space's numbered history outlives the process. The gateway numbers and serves history from memory; the
 * store persists it. Nothing a client sees may precede the durable write of what it shows (durable before
 * visible): transports hold their output of a turn until `commit()` has written everything appended so far, and
 * answers that name history wait for `whenDurable`.
 */
export interface HistoryStore {
  load(spaceId: string, limit: number): LoadedHistory;
  /** Queues the entry for this turn's write; entries beyond the retained `limit` given to `load` may be pruned. Never throws. */
  append(spaceId: string, entry: HistoryEntry): void;
  /**
   * Writes everything appended so far, synchronously where the store can (group commit: one write per turn of the
   * event loop). False when it could not: then nothing appended may be shown yet, and the store retries by itself.
   */
  commit(): boolean;
  /** Runs `done` once everything appended so far is durable (at once when it already is). */
  whenDurable(done: () => void): void;
  /** Writes everything queued and records that this run ended cleanly. */
  close(): void | Promise<void>;
}
