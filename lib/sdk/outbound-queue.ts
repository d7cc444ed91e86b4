import { OutboundQueueFullError } from './sdk-errors';

/**
 * What `send` keeps while the connection is down, oldest first, up to `limit`. Bounded so a long outage costs
 * a known amount of memory and the caller learns at once (not silently later) that a message will not go out.
 *
 * @example
 * const queue = new OutboundQueue<string>(2);
 * queue.push('a'); queue.push('b');
 * queue.push('c'); // throws OutboundQueueFullError
 * queue.drain(); // ['a', 'b']
 */
export class OutboundQueue<T> {
  private items: T[] = [];

  constructor(readonly limit: number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.items.length >= this.limit) throw new OutboundQueueFullError(this.limit);
    this.items.push(item);
  }

  /** Removes and returns everything queued. */
  drain(): T[] {
    const items = this.items;
    this.items = [];
    return items;
  }
}
