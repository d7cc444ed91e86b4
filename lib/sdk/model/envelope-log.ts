import { RingBuffer } from '../../collections/ring-buffer';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/** One envelope in the log. */
export interface LogEntry {
  /** Ingestion order, 1-based; gaps never occur, so `seq` also counts envelopes ever logged. */
  seq: number;
  /** When the store ingested it (epoch ms); the envelope's own `ts` is on the envelope. */
  receivedAt: number;
  /** When the envelope happened: its `ts`, else `receivedAt` (parsed once, here: the log view orders by it). */
  at: number;
  envelope: StoreEnvelope;
}

/**
 * Every envelope seen, bounded: a ring of entries plus the two indexes the correlation chain walks (id → entry,
 * parent id → child ids). Appends are O(1) amortised; an evicted entry leaves both indexes.
 * Mutable like `RingBuffer`: the log slice object is replaced on every append.
 */
export class EnvelopeLog {
  private readonly ring: RingBuffer<LogEntry>;
  private readonly byId = new Map<string, LogEntry>();
  private readonly children = new Map<string, string[]>();

  constructor(capacity: number) {
    this.ring = new RingBuffer<LogEntry>(capacity);
  }

  get capacity(): number {
    return this.ring.capacity;
  }

  /** Entries held. */
  get size(): number {
    return this.ring.size;
  }

  /** Entries evicted to respect the cap ("N older entries evicted"). */
  get evicted(): number {
    return this.ring.evicted;
  }

  /** Changes so far (memoisation key). */
  get version(): number {
    return this.ring.version;
  }

  /** Appends an entry, evicting the oldest when full. */
  append(entry: LogEntry): void {
    const old = this.ring.push(entry);
    if (old) this.unindex(old);
    this.byId.set(entry.envelope.id, entry);
    for (const parent of correlationIds(entry.envelope)) {
      const list = this.children.get(parent);
      if (list) list.push(entry.envelope.id);
      else this.children.set(parent, [entry.envelope.id]);
    }
  }

  /** The entry of envelope `id`, if still held. */
  get(id: string): LogEntry | undefined {
    return this.byId.get(id);
  }

  /** Ids of the envelopes whose `correlation_id` names `id` (some may have been evicted since). */
  childrenOf(id: string): readonly string[] {
    return this.children.get(id) ?? [];
  }

  /** Oldest first; the same array until the next append. */
  entries(): readonly LogEntry[] {
    return this.ring.toArray();
  }

  private unindex(entry: LogEntry): void {
    const id = entry.envelope.id;
    if (this.byId.get(id) === entry) this.byId.delete(id);
    this.children.delete(id);
    for (const parent of correlationIds(entry.envelope)) {
      const list = this.children.get(parent);
      if (!list) continue;
      const at = list.indexOf(id);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0) this.children.delete(parent);
    }
  }
}

/** The log slice: a fresh object per append so subscribers see the change. */
export interface LogState {
  entries: EnvelopeLog;
  /** Entries held. */
  size: number;
  /** Entries evicted so far. */
  evicted: number;
  /** Envelopes ever logged. */
  total: number;
}

/** A fresh log. */
export function initialLog(capacity: number): LogState {
  return { entries: new EnvelopeLog(capacity), size: 0, evicted: 0, total: 0 };
}

/** Appends the envelope, which happened `at` and was received `now`. */
export function reduceLog(state: LogState, envelope: StoreEnvelope, seq: number, now: number, at: number): LogState {
  state.entries.append({ seq, receivedAt: now, at, envelope });
  return { entries: state.entries, size: state.entries.size, evicted: state.entries.evicted, total: state.total + 1 };
}
