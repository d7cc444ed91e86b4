import { CHARS_PER_TOKEN, COMPACT_KEEP_NEWEST, COMPACT_SUMMARY_MAX_CHARS } from './demo-defaults';

/** One remembered item: a task note, a thought, a result, a chat, or a summary of older items. */
export interface ContextEntry {
  kind: string;
  text: string;
  tokens: number;
}

/** What the context holds now, as `participant/status` reports it. */
export interface ContextSize {
  tokens: number;
  messages: number;
}

/** How much a forget, compact or clear reclaimed. */
export interface ContextFreed {
  freedTokens: number;
  freedMessages: number;
}

export interface WorkingContextOptions {
  /** Oldest entries fall out beyond this many (a small, steady context). Unbounded when omitted. */
  maxEntries?: number;
  /** Called after every change, with the new size. */
  onChange?: (size: ContextSize) => void;
}

/** Rough token count of a text: ~4 characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * An agent's real working memory: an ordered list of entries whose token estimate is what the agent reports.
 * Forget, compact and clear genuinely remove entries, so the numbers in `participant/status` move because
 * the memory changed, not because a counter was reset.
 *
 * @example
 * const context = new WorkingContext({ onChange: ({ tokens }) => console.log(tokens) });
 * context.add('task', 'Draft the retro notes');
 * context.compact(); // undefined: nothing old enough to summarise yet
 */
export class WorkingContext {
  private items: ContextEntry[] = [];

  constructor(private readonly options: WorkingContextOptions = {}) {}

  get size(): ContextSize {
    return { tokens: this.items.reduce((sum, entry) => sum + entry.tokens, 0), messages: this.items.length };
  }

  entries(): readonly ContextEntry[] {
    return this.items;
  }

  add(kind: string, text: string): void {
    this.items.push({ kind, text, tokens: estimateTokens(text) });
    const { maxEntries } = this.options;
    if (maxEntries !== undefined && this.items.length > maxEntries) this.items.splice(0, this.items.length - maxEntries);
    this.changed();
  }

  /** Drops `count` entries from the oldest or the newest end. */
  forget(direction: 'oldest' | 'newest', count: number): ContextFreed {
    const n = Math.min(count, this.items.length);
    const dropped = direction === 'oldest' ? this.items.splice(0, n) : this.items.splice(this.items.length - n, n);
    return this.freed(dropped);
  }

  /**
   * Replaces everything but the newest `keepNewest` entries by one bounded summary entry. Returns undefined
   * (and changes nothing) when that would not make the context smaller.
   */
  compact(keepNewest = COMPACT_KEEP_NEWEST): ContextFreed | undefined {
    const old = this.items.slice(0, Math.max(0, this.items.length - keepNewest));
    const summary = summarise(old);
    const oldTokens = old.reduce((sum, entry) => sum + entry.tokens, 0);
    if (old.length < 2 || estimateTokens(summary) >= oldTokens) return undefined;
    const before = this.size;
    this.items = [{ kind: 'summary', text: summary, tokens: estimateTokens(summary) }, ...this.items.slice(old.length)];
    const after = this.size;
    this.changed();
    return { freedTokens: before.tokens - after.tokens, freedMessages: before.messages - after.messages };
  }

  /** Empties the context. */
  clear(): ContextFreed {
    return this.freed(this.items.splice(0));
  }

  private freed(dropped: ContextEntry[]): ContextFreed {
    if (dropped.length > 0) this.changed();
    return { freedTokens: dropped.reduce((sum, entry) => sum + entry.tokens, 0), freedMessages: dropped.length };
  }

  private changed(): void {
    this.options.onChange?.(this.size);
  }
}

/** A deterministic stand-in for an LLM summary: counts by kind plus the start of the latest results. */
function summarise(entries: readonly ContextEntry[]): string {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.kind, (counts.get(entry.kind) ?? 0) + 1);
  const tally = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const highlights = entries
    .filter((entry) => entry.kind === 'result')
    .slice(-3)
    .map((entry) => entry.text.split(/[.\n]/)[0]);
  const text = `Summary of ${entries.length} earlier entries (${tally}).${highlights.length ? ` Latest results: ${highlights.join('; ')}.` : ''}`;
  return text.length > COMPACT_SUMMARY_MAX_CHARS ? `${text.slice(0, COMPACT_SUMMARY_MAX_CHARS - 1)}…` : text;
}
