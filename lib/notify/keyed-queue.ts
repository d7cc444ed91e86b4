import { DropCounter } from './drop-counter';

/**
 * Runs async tasks off the caller's path: in order for one key (a push device, a webhook, so an outcome never
 * overtakes its pending notice), in parallel across keys. Bounded: past `maxQueued` waiting tasks, new ones are
 * dropped and counted, so a dead receiver cannot make the server's memory grow.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private queued = 0;
  private readonly drops: DropCounter;

  constructor(
    private readonly maxQueued: number,
    private readonly onError: (error: unknown) => void,
    log: (line: string) => void,
  ) {
    this.drops = new DropCounter('sends (the queue is full)', log);
  }

  /** Queues `task` after the tasks of the same key; returns false when it was dropped. */
  push(key: string, task: () => Promise<void>): boolean {
    if (this.queued >= this.maxQueued) {
      this.drops.count();
      return false;
    }
    this.queued++;
    const tail = (this.tails.get(key) ?? Promise.resolve())
      .then(task)
      .catch(this.onError)
      .finally(() => {
        this.queued--;
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    this.tails.set(key, tail);
    return true;
  }

  /** Resolves once every task queued so far has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}
