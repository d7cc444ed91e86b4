import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { newHistoryEpoch } from '../history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory } from '../history-store';
import type { GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';

/**
 * Entries are handed to the writer this long after the first one queued, as one chunk per space. Within that time
 * only the newest `historySize` of a space can still matter (older ones would be pruned at once), so a busy space
 * writes at most `historySize` entries per interval however fast it goes. It is also (with the writer's backlog)
 * the window a crash can lose: the next start then begins a new epoch, so no client's cursor is misread.
 */
export const HISTORY_FLUSH_INTERVAL_MS = 500;
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
  /** Per space: the entries not yet handed to the writer (consecutive seqs). */
  private queue = new Map<string, HistoryEntry[]>();
  private timer?: ReturnType<typeof setTimeout>;
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
    let entries = this.queue.get(spaceId);
    if (!entries) this.queue.set(spaceId, (entries = []));
    entries.push(entry);
    // Entries older than the retained window would be pruned as soon as written: drop them (amortised, so memory
    // stays within twice the window).
    const limit = this.limits[spaceId] ?? entries.length;
    if (entries.length >= 2 * limit) this.queue.set(spaceId, entries.slice(-limit));
    this.timer ??= setTimeout(() => this.flush(), HISTORY_FLUSH_INTERVAL_MS).unref();
  }

  /** Hands everything queued to the writer, one chunk of JSON lines per space. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.size === 0) return;
    const chunks = [...this.queue].map(([space, queued]) => {
      const entries = queued.slice(-(this.limits[space] ?? queued.length));
      return { space, firstSeq: entries[0].seq, lastSeq: entries.at(-1)!.seq, entries: entries.map(toLine).join('\n') };
    });
    this.queue = new Map();
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
    this.writer.postMessage({ type: 'close', clean: [...this.epochs] });
    await done;
    await this.writer.terminate();
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
