import { z } from 'zod';
import { newHistoryEpoch } from '../history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory } from '../history-store';
import type { GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';

/**
 * A quiet queue is written this long after its first entry, so a burst becomes one transaction. It is also the
 * window a crash can lose: the next start then begins a new epoch, so no client's cursor is misread.
 */
export const HISTORY_FLUSH_INTERVAL_MS = 50;
/** Entries per transaction; a queue this long is written on the next turn of the event loop, without the wait. */
export const HISTORY_MAX_BATCH = 1000;
/** After a failed write, the next attempt waits this long. */
export const HISTORY_RETRY_INTERVAL_MS = 1000;
/**
 * Entries held while writes fail. Beyond it the oldest are dropped and this run's epoch is never marked clean, so
 * the next start numbers history anew and clients learn their catch-up is incomplete.
 */
export const HISTORY_MAX_QUEUE = 100_000;

const rowSchema = z.object({
  seq: z.number().int().positive(),
  data: z.string().min(2),
  received_at: z.number().int(),
  visible_to: z.string().nullable(),
});

interface SpaceHistory {
  epoch: string;
  limit: number;
}

/**
 * Numbered history in the gateway's database, written in batches off the message path (like the audit log) and
 * pruned to each space's retained size. An epoch is kept across restarts only when the previous run closed cleanly
 * (everything written); after a crash the next run starts a new epoch, so a cursor that pointed into entries the
 * crash lost can never be taken for a position in the new ones.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly spaces = new Map<string, SpaceHistory>();
  private queue: { space: string; entry: HistoryEntry }[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private lostEntries = false;
  private closed = false;

  constructor(
    private readonly database: GatewayDatabase,
    private readonly onError: (error: Error) => void = (e) => console.error('[history] write failed, will retry:', e.message),
  ) {}

  load(spaceId: string, limit: number): LoadedHistory {
    const { db, file } = this.database;
    const row = db.prepare('SELECT epoch, clean FROM history_epochs WHERE space = ?').get(spaceId) as { epoch: string; clean: number } | undefined;
    const epoch = row?.clean === 1 ? row.epoch : newHistoryEpoch();
    db.prepare('INSERT OR REPLACE INTO history_epochs (space, epoch, clean) VALUES (?, ?, 0)').run(spaceId, epoch);
    this.spaces.set(spaceId, { epoch, limit });
    const rows = db
      .prepare('SELECT seq, data, received_at, visible_to FROM history WHERE space = ? ORDER BY seq DESC LIMIT ?')
      .all(spaceId, limit)
      .reverse();
    const entries = rows.map((value, i): HistoryEntry => {
      const parsed = rowSchema.safeParse(value);
      const visibleTo = parsed.success && parsed.data.visible_to !== null ? parseVisibleTo(parsed.data.visible_to) : undefined;
      if (!parsed.success || visibleTo === null) {
        throw new PersistenceError(file, `space "${spaceId}" history row ${i + 1} of ${rows.length} does not validate`);
      }
      const { seq, data, received_at: receivedAt } = parsed.data;
      return { seq, data, receivedAt, ...(visibleTo ? { visibleTo } : {}) };
    });
    return { epoch, entries };
  }

  append(spaceId: string, entry: HistoryEntry): void {
    if (this.closed) return;
    if (this.queue.length >= HISTORY_MAX_QUEUE) {
      this.queue.shift();
      this.lostEntries = true;
    }
    this.queue.push({ space: spaceId, entry });
    if (this.queue.length >= HISTORY_MAX_BATCH) this.schedule(0);
    else this.timer ??= this.schedule(HISTORY_FLUSH_INTERVAL_MS);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) this.writeBatch(this.queue.splice(0, HISTORY_MAX_BATCH));
  }

  /** Writes everything and marks each space's epoch clean, so the next start continues its numbering. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
      if (this.lostEntries) return;
      const mark = this.database.db.prepare('UPDATE history_epochs SET clean = 1 WHERE space = ? AND epoch = ?');
      this.database.transaction(() => {
        for (const [space, { epoch }] of this.spaces) mark.run(space, epoch);
      });
    } finally {
      this.closed = true;
      this.queue = [];
    }
  }

  private schedule(delayMs: number): ReturnType<typeof setTimeout> {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch (e) {
        this.onError(e as Error);
        this.timer = this.schedule(HISTORY_RETRY_INTERVAL_MS);
      }
    }, delayMs);
    this.timer.unref?.();
    return this.timer;
  }

  private writeBatch(batch: { space: string; entry: HistoryEntry }[]): void {
    const { db } = this.database;
    const insert = db.prepare('INSERT OR REPLACE INTO history (space, seq, data, received_at, visible_to) VALUES (?, ?, ?, ?, ?)');
    const prune = db.prepare('DELETE FROM history WHERE space = ? AND seq <= ?');
    try {
      this.database.transaction(() => {
        const newest = new Map<string, number>();
        for (const { space, entry } of batch) {
          insert.run(space, entry.seq, entry.data, entry.receivedAt, entry.visibleTo ? JSON.stringify(entry.visibleTo) : null);
          newest.set(space, entry.seq);
        }
        for (const [space, seq] of newest) prune.run(space, seq - (this.spaces.get(space)?.limit ?? seq));
      });
    } catch (e) {
      this.queue.unshift(...batch); // kept, in order, for the retry
      throw e;
    }
  }
}

/** The stored `visible_to` list, or null when it is not a list of ids. */
function parseVisibleTo(text: string): string[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((id) => typeof id === 'string') ? value : null;
  } catch {
    return null;
  }
}
