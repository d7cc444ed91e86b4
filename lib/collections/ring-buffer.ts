/**
 * A fixed-capacity FIFO: pushing onto a full buffer evicts the oldest item and counts it. Pushes are O(1) with no
 * array copies (the log takes hundreds of envelopes a second); `toArray()` copies once per change and caches it.
 *
 * It is mutable on purpose: slices that own one replace their own (small) slice object on every change, so
 * reference equality still tells subscribers something changed; `version` counts changes.
 *
 * @example
 * const ring = new RingBuffer<number>(2);
 * ring.push(1); ring.push(2); ring.push(3); // evicts 1
 * ring.toArray(); // [2, 3]; ring.evicted === 1
 */
export class RingBuffer<T> {
  readonly capacity: number;
  private readonly items: (T | undefined)[];
  private head = 0; // index of the oldest item
  private length = 0;
  private cache: readonly T[] | undefined;
  /** Items evicted because the buffer was full. */
  evicted = 0;
  /** Incremented on every push or clear. */
  version = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
    this.capacity = capacity;
    this.items = new Array<T | undefined>(capacity);
  }

  /** Number of items held. */
  get size(): number {
    return this.length;
  }

  /** Appends `item`; returns the evicted oldest item when the buffer was full. */
  push(item: T): T | undefined {
    this.cache = undefined;
    this.version++;
    if (this.length < this.capacity) {
      this.items[(this.head + this.length) % this.capacity] = item;
      this.length++;
      return undefined;
    }
    const old = this.items[this.head];
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    this.evicted++;
    return old;
  }

  /** The item at `index` (0 = oldest), or undefined. */
  at(index: number): T | undefined {
    if (index < 0) index += this.length;
    if (index < 0 || index >= this.length) return undefined;
    return this.items[(this.head + index) % this.capacity];
  }

  /** The newest item, or undefined. */
  last(): T | undefined {
    return this.at(this.length - 1);
  }

  /** Oldest first; the same array until the next change. */
  toArray(): readonly T[] {
    if (this.cache) return this.cache;
    const out = new Array<T>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.items[(this.head + i) % this.capacity] as T;
    this.cache = out;
    return out;
  }

  /** Empties the buffer (the eviction count is kept: those items are still gone). */
  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.length = 0;
    this.cache = undefined;
    this.version++;
  }
}
