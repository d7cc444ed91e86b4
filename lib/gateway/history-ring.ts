/** A fixed-size ring of the newest entries; the oldest is overwritten when full. */
export class HistoryRing<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array(Math.max(1, capacity));
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.items.length;
    if (this.count < this.items.length) this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** Entries oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.next - this.count + this.items.length) % this.items.length;
    for (let i = 0; i < this.count; i++) out.push(this.items[(start + i) % this.items.length] as T);
    return out;
  }
}
