/**
 * A Map that evicts its oldest entries (insertion order) beyond `capacity`, in O(1) amortised per `set`.
 * Evicting by iterating a Map from its start would cost O(capacity) per eviction in V8, which skips the deleted
 * slots left at the front; the key ring kept here avoids that. A key deleted and set again counts from its first
 * insertion (ids in the store are unique, so this does not arise in practice).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly capacity: number;
  private readonly onEvict?: (key: K, value: V) => void;
  private order: K[] = [];
  private head = 0;

  constructor(capacity: number, onEvict?: (key: K, value: V) => void) {
    super();
    this.capacity = Math.max(1, capacity);
    this.onEvict = onEvict;
  }

  override set(key: K, value: V): this {
    // Map's constructor never calls set without entries, but guard against fields not being initialised yet.
    if (!this.order) return super.set(key, value);
    if (!this.has(key)) this.order.push(key);
    super.set(key, value);
    while (this.size > this.capacity && this.head < this.order.length) {
      const old = this.order[this.head++];
      if (!this.has(old)) continue; // deleted explicitly since
      const evicted = this.get(old) as V;
      super.delete(old);
      this.onEvict?.(old, evicted);
    }
    const pending = this.order.length - this.head;
    if (this.head > 0 && this.head >= pending) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    } else if (pending > 2 * this.capacity + 16) {
      // Explicit deletes left stale keys behind: rebuild from the live keys.
      this.order = [...this.keys()];
      this.head = 0;
    }
    return this;
  }
}
