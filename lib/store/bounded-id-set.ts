/**
 * A set of ids that forgets the oldest once full: the memory behind idempotent re-ingest. A catch-up replays
 * recent history, so remembering a window larger than the log is enough, and memory stays bounded.
 */
export class BoundedIdSet {
  readonly capacity: number;
  private readonly ids = new Set<string>();
  // Insertion order kept in a ring: evicting "the Set's first value" instead would make V8 skip an ever-growing
  // run of deleted slots on each eviction.
  private readonly order: string[];
  private head = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.order = new Array<string>(this.capacity);
  }

  /** Whether `id` was added and not yet forgotten. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Adds `id`; returns false (and changes nothing) when it was already there. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    if (this.ids.size >= this.capacity) this.ids.delete(this.order[this.head]);
    this.order[this.head] = id;
    this.head = (this.head + 1) % this.capacity;
    this.ids.add(id);
    return true;
  }

  get size(): number {
    return this.ids.size;
  }
}
