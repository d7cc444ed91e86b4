import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { newHistoryEpoch } from '../history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory } from '../history-store';
import type { GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';

/**
 * A quiet queue is handed to the writer this long after its first entry, so a burst becomes one transaction. It is
 * also (with the writer's own backlog) the window a crash can lose: the next start then begins a new epoch, so no
 * client's cursor is misread.
 */
export const HISTORY_FLUSH_INTERVAL_MS = 50;
/** Entries per batch; a queue this long is handed over at once, without the wait. */
export const HISTORY_MAX_BATCH = 1000;
/**
 * Entries held while the writer is not keeping up. Beyond it the oldest are dropped and this run's epoch is never
 * marked clean, so the next start numbers history anew and clients learn their catch-up is incomplete.
 */
export const HISTORY_MAX_QUEUE = 100_000;
/** How long a write waits for another connection's lock (the gateway's own, the audit log's, operator tools'). */
const WRITER_BUSY_TIMEOUT_MS = 5000;

const WRITER_URL = new URL('./history-writer-worker.mjs', import.meta.url);

/** One line of a stored chunk. */
const lineSchema = z.object({
  seq: z.number().int().positive(),
  at: z.number().int(),
  to: z.array(z.string()).nullable(),
  envelope: z.looseObject({ id: z.string(), kind: z.string() }),
});

/**
 * Numbered history in the gateway's database. Loading (once, at start) happens here; writing happens on a worker
 * thread with its own connection (history-writer-worker.mjs), in batches, pruned to each space's retained size, so
 * the message path only hands over the envelope text it serialised anyway. An epoch is kept across restarts only
 * when the previous run closed cleanly (everything written); after a crash the next run starts a new epoch, so a
 * cursor that pointed into entries the crash lost can never be taken for a position in the new ones.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly epochs = new Map<string, string>();
  private readonly limits: Record<string, number> = {};
  /** Per space: the JSON lines not yet handed to the writer, and their seq range. */
  private queue = new Map<string, { firstSeq: number; lastSeq: number; lines: string }>();
  private queued = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private lostEntries = false;
  private closed = false;
  private readonly writer: Worker;

  constructor(
    private readonly database: GatewayDatabase,
    onError: (error: Error) => void = (e) => console.error('[history] write failed, will retry:', e.message),
  ) {
    this.writer = new Worker(WRITER_URL, { workerData: { file: database.file, busyTimeoutMs: WRITER_BUSY_TIMEOUT_MS } });
    this.writer.on('message', (message: { type: string; message?: string }) => {
      if (message.type === 'error') onError(new Error(message.message));
    });
    this.writer.on('error', (error) => onError(error));
    this.writer.unref(); // the gateway's close() waits for it; nothing else should keep the process alive
  }

  load(spaceId: string, limit: number): LoadedHistory {
    const { db, file } = this.database;
    const row = db.prepare('SELECT epoch, clean FROM history_epochs WHERE space = ?').get(spaceId) as { epoch: string; clean: number } | undefined;
    const epoch = row?.clean === 1 ? row.epoch : newHistoryEpoch();
    db.prepare('INSERT OR REPLACE INTO history_epochs (space, epoch, clean) VALUES (?, ?, 0)').run(spaceId, epoch);
    this.epochs.set(spaceId, epoch);
    this.limits[spaceId] = limit;
    const newest = (db.prepare('SELECT MAX(last_seq) AS seq FROM history_chunks WHERE space = ?').get(spaceId) as { seq: number | null }).seq ?? 0;
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
    return { epoch, entries };
  }

  append(spaceId: string, entry: HistoryEntry): void {
    if (this.closed) return;
    if (this.queued >= HISTORY_MAX_QUEUE) return void (this.lostEntries = true); // the writer is stuck: keep memory bounded
    // The envelope's JSON goes in as is: built by concatenation, never escaped or parsed again on this path.
    const line = `{"seq":${entry.seq},"at":${entry.receivedAt},"to":${entry.visibleTo ? JSON.stringify(entry.visibleTo) : 'null'},"envelope":${entry.data}}`;
    const chunk = this.queue.get(spaceId);
    if (chunk) {
      chunk.lines += `\n${line}`;
      chunk.lastSeq = entry.seq;
    } else {
      this.queue.set(spaceId, { firstSeq: entry.seq, lastSeq: entry.seq, lines: line });
    }
    if (++this.queued >= HISTORY_MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), HISTORY_FLUSH_INTERVAL_MS).unref();
  }

  /** Hands everything queued to the writer, one chunk per space. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.size === 0) return;
    const chunks = [...this.queue].map(([space, c]) => ({ space, firstSeq: c.firstSeq, lastSeq: c.lastSeq, entries: c.lines }));
    this.queue = new Map();
    this.queued = 0;
    this.writer.postMessage({ type: 'write', chunks, limits: this.limits });
  }

  /** Writes everything and, when nothing was lost, marks each space's epoch clean so the next start continues it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    const done = new Promise<void>((resolve) => {
      this.writer.on('message', (message: { type: string }) => message.type === 'closed' && resolve());
      this.writer.once('exit', () => resolve());
    });
    this.writer.postMessage({ type: 'close', clean: [...this.epochs], lost: this.lostEntries });
    await done;
    await this.writer.terminate();
  }
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
