/** Drops logged: the first, then one line per this many, so a flood cannot flood the log too. */
const LOG_EVERY = 1000;

/** Counts what a bounded queue had to drop, and says so in the log now and then. */
export class DropCounter {
  private dropped = 0;

  constructor(
    private readonly what: string,
    private readonly log: (line: string) => void,
  ) {}

  count(): void {
    if (this.dropped++ % LOG_EVERY === 0) this.log(`dropped ${this.dropped} ${this.what} so far`);
  }
}
