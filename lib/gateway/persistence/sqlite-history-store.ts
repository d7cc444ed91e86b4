import type Database from 'better-sqlite3';
import { z } from 'zod';
import { newHistoryEpoch } from '../history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory, PastEpoch } from '../history-store';
import type { GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';

/** After a failed write, the next attempt waits this long (a failing disk is not retried in a tight loop). */
export const HISTORY_RETRY_INTERVAL_MS = 1000;
/**
 * Chunks older than the retained window are deleted once this many more entries were written: pruning is a
 * range delete on the primary key, cheap but not free, so it is not done on every turn's write.
 */
const PRUNE_EVERY_ENTRIES = 256;
/** Earlier numberings kept readable per space; cursors of older ones are answered as unknown (a full catch-up). */
const MAX_PAST_EPOCHS = 32;

/** One line of a stored chunk. */
const lineSchema = z.object({
  seq: z.number().int().positive(),
  at: z.number().int(),
  to: z.array(z.string()).nullable(),
  envelope: z.looseObject({ id: z.string(), kind: z.string() }),
});

export interface SqliteHistoryStoreOptions {
  /** Told of a failed write (it is retried every HISTORY_RETRY_INTERVAL_MS; meanwhile nothing new is shown). */
  onError?: (error: Error) => void;
  /**
   * Other writes that must be durable by the same turn, run right after it (the audit log's queue): a crash never
   * keeps an envelope and loses the audit record of what it did. Throws to fail the commit (then retried).
   */
  alsoCommit?: () => void;
}

/**
 * Numbered history in the gateway's database, written by group commit: everything a turn of the event loop
 * appended goes in one transaction (one chunk row per space) before the transports let anyone see it. With WAL
 * and `synchronous = NORMAL` (gateway-database.ts) a commit is a write to the WAL file without fsync: it survives
 * the process being killed (`kill -9`, a crash) but not necessarily the machine losing power, where the newest
 * transactions may be lost whole (the database stays consistent). `MEW_DURABILITY=power` makes every commit fsync.
 *
 * Numbering: a clean close lets the next start continue the same epoch. After an unclean stop the next start
 * continues the numbers from the newest written entry under a new epoch name and keeps the old epoch readable up to
 * that entry, so every cursor a client holds still means what it meant (none can point past what was written, since
 * nothing is shown before it is written) — and if the machine lost power, a cursor into lost entries is recognised
 * as unknown instead of being misread as a position among the new ones.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly epochs = new Map<string, string>();
  private readonly limits = new Map<string, number>();
  /** Per space: the newest seq written, and the newest pruned up to (so pruning runs every PRUNE_EVERY_ENTRIES). */
  private readonly pruned = new Map<string, number>();
  /** Per space: the entries appended and not yet written (consecutive seqs). */
  private queue = new Map<string, HistoryEntry[]>();
  private waiting: (() => void)[] = [];
  private scheduled?: ReturnType<typeof setImmediate>;
  private retry?: ReturnType<typeof setTimeout>;
  private closed = false;
  private readonly insert: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly write: Database.Transaction<(chunks: { space: string; firstSeq: number; lastSeq: number; entries: string }[]) => void>;
  private readonly onError: (error: Error) => void;

  constructor(
    private readonly database: GatewayDatabase,
    private readonly options: SqliteHistoryStoreOptions = {},
  ) {
    const { db } = database;
    this.onError =
      options.onError ??
      ((e) =>
        console.error(`[history] cannot write ${database.file}, retrying every ${HISTORY_RETRY_INTERVAL_MS} ms (nothing new is shown meanwhile):`, e.message));
    this.insert = db.prepare('INSERT OR REPLACE INTO history_chunks (space, first_seq, last_seq, entries) VALUES (?, ?, ?, ?)');
    // first_seq <= ? bounds the scan to the old end of the primary key; last_seq <= ? keeps a chunk that straddles it.
    this.prune = db.prepare('DELETE FROM history_chunks WHERE space = ? AND first_seq <= ? AND last_seq <= ?');
    this.write = db.transaction((chunks) => {
      for (const c of chunks) {
        this.insert.run(c.space, c.firstSeq, c.lastSeq, c.entries);
        const limit = this.limits.get(c.space) ?? Infinity;
        const through = c.lastSeq - limit;
        if (through - (this.pruned.get(c.space) ?? 0) >= PRUNE_EVERY_ENTRIES) {
          this.prune.run(c.space, through, through);
          this.pruned.set(c.space, through);
        }
      }
    });
  }

  load(spaceId: string, limit: number): LoadedHistory {
    const { db, file } = this.database;
    const row = db.prepare('SELECT epoch, clean FROM history_epochs WHERE space = ?').get(spaceId) as { epoch: string; clean: number } | undefined;
    const newest = (db.prepare('SELECT MAX(last_seq) AS seq FROM history_chunks WHERE space = ?').get(spaceId) as { seq: number | null }).seq ?? 0;
    const readPast = () =>
      db.prepare('SELECT epoch, from_seq AS firstSeq, to_seq AS lastSeq FROM history_past_epochs WHERE space = ? ORDER BY to_seq').all(spaceId) as PastEpoch[];
    let epoch = row?.epoch ?? newHistoryEpoch();
    if (row && row.clean !== 1) {
      // Unclean stop: see the class comment. The old name stays readable for every number it issued that was written.
      const past = readPast();
      epoch = newHistoryEpoch();
      this.database.transaction(() => {
        db.prepare('INSERT OR REPLACE INTO history_past_epochs (space, epoch, from_seq, to_seq) VALUES (?, ?, ?, ?)').run(
          spaceId,
          row.epoch,
          past.at(-1)?.lastSeq ?? 0,
          newest,
        );
        if (past.length + 1 > MAX_PAST_EPOCHS) {
          db.prepare('DELETE FROM history_past_epochs WHERE space = ? AND to_seq <= ?').run(spaceId, past[past.length - MAX_PAST_EPOCHS].lastSeq);
        }
      });
    }
    db.prepare('INSERT OR REPLACE INTO history_epochs (space, epoch, clean) VALUES (?, ?, 0)').run(spaceId, epoch);
    this.epochs.set(spaceId, epoch);
    this.limits.set(spaceId, limit);
    this.pruned.set(spaceId, Math.max(0, newest - limit));
    const chunks = db
      .prepare('SELECT first_seq, entries FROM history_chunks WHERE space = ? AND last_seq > ? ORDER BY first_seq')
      .all(spaceId, newest - limit) as { first_seq: number; entries: string }[];
    const entries: HistoryEntry[] = [];
    for (const chunk of chunks) {
      for (const line of chunk.entries.split('\n')) {
        const entry = parseLine(line);
        if (!entry) throw new PersistenceError(file, `space "${spaceId}" history chunk from seq ${chunk.first_seq} does not validate`);
        if (entry.seq > newest - limit) entries.push(entry);
      }
    }
    return { epoch, entries, lastSeq: newest, pastEpochs: readPast() };
  }

  append(spaceId: string, entry: HistoryEntry): void {
    if (this.closed) return;
    let entries = this.queue.get(spaceId);
    if (!entries) this.queue.set(spaceId, (entries = []));
    entries.push(entry);
    // A transport usually commits at the end of the turn; this writes what no socket is waiting for (HTTP, timers).
    this.scheduled ??= setImmediate(() => this.commit());
  }

  commit(): boolean {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.retry) return false; // a write is failing: the retry timer commits, and then releases what waits
    try {
      if (this.queue.size > 0) {
        this.write(this.takeChunks());
        this.queue = new Map();
      }
      this.options.alsoCommit?.();
    } catch (e) {
      this.onError(e as Error);
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.commit();
      }, HISTORY_RETRY_INTERVAL_MS);
      this.retry.unref?.();
      return false;
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const done of waiting) done();
    return true;
  }

  whenDurable(done: () => void): void {
    if (this.queue.size === 0 && !this.retry) return done();
    this.waiting.push(done);
  }

  /** Writes everything and, when nothing was lost, marks each space's epoch clean so the next start continues it. */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = undefined;
    const written = this.commit();
    this.closed = true;
    if (!written) {
      console.error(`[history] closed with ${[...this.queue.values()].reduce((n, q) => n + q.length, 0)} unwritten envelopes`);
      return;
    }
    const markClean = this.database.db.prepare('UPDATE history_epochs SET clean = 1 WHERE space = ? AND epoch = ?');
    this.database.transaction(() => {
      for (const [space, epoch] of this.epochs) markClean.run(space, epoch);
    });
  }

  /** One chunk of JSON lines per space, of the entries still inside its retained window. */
  private takeChunks() {
    return [...this.queue].map(([space, queued]) => {
      const limit = this.limits.get(space) ?? queued.length;
      const entries = queued.length > limit ? queued.slice(-limit) : queued;
      return { space, firstSeq: entries[0].seq, lastSeq: entries.at(-1)!.seq, entries: entries.map(toLine).join('\n') };
    });
  }
}

/** One entry as a stored line; the envelope's JSON goes in as is, never escaped or parsed again. */
function toLine(entry: HistoryEntry): string {
  return `{"seq":${entry.seq},"at":${entry.receivedAt},"to":${entry.visibleTo ? JSON.stringify(entry.visibleTo) : 'null'},"envelope":${entry.data}}`;
}

/** One stored line back as an entry (its envelope serialised again, to the same text), or undefined if it is not one. */
function parseLine(line: string): HistoryEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = lineSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { seq, at, to } = parsed.data;
  return { seq, receivedAt: at, data: JSON.stringify((value as { envelope: unknown }).envelope), ...(to ? { visibleTo: to } : {}) };
}
