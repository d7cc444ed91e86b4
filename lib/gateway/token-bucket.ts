/**
 * A token bucket refilled lazily on each take, so an idle participant costs nothing.
 * Time comes from `Date.now()` so tests can drive it with fake timers.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt = Date.now();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Takes one token. Returns 0 when allowed, else how many ms until the next token is available. */
  take(): number {
    const now = Date.now();
    const elapsed = now - this.updatedAt;
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerSecond) / 1000);
      this.updatedAt = now;
    }
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond));
  }
}
