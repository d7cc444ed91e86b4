import { CHARS_PER_TOKEN_ESTIMATE } from './agent-options';

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

/** What an agent's entries are and how they fold: a model's chat messages, or a scripted agent's notes. */
export interface WorkingContextOptions<T> {
  /** Estimated tokens of one entry (see `estimateTokens`). */
  tokens(entry: T): number;
  /** Folds entries into one summary entry: a model call, or a deterministic stand-in. It may throw (nothing changes). */
  summarise(entries: readonly T[], signal?: AbortSignal): T | Promise<T>;
  /** Whether an entry begins a group that forget keeps whole (a tool result belongs to its call). @default every entry */
  startsGroup?(entry: T): boolean;
  /** Compaction keeps this many newest entries verbatim. @default 0 */
  keepNewest?: number;
  /** Oldest entries fall out beyond this many (a small, steady context). Unbounded when omitted. */
  maxEntries?: number;
  /** Called after every change, with the new size. */
  onChange?(size: ContextSize): void;
}

/** Rough token count of a text, until a model API reports the real one. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

/**
 * An agent's real working memory: ordered entries whose token estimate is what the agent reports, and what the
 * participant controls act on. Forget, compact and clear genuinely remove entries, so the numbers in
 * `participant/status` move because the memory changed. A compaction may take a while (a model call): entries added
 * meanwhile stay after its summary, and one overtaken by a removal is dropped rather than bring removed entries back.
 *
 * @example
 * const context = new WorkingContext<string>({ tokens: estimateTokens, summarise: (notes) => `${notes.length} notes` });
 * context.add('Draft the retro notes', 'Asked files for the template');
 * await context.compact(); // { freedMessages: 1, freedTokens: … }
 */
export class WorkingContext<T> {
  private items: { entry: T; tokens: number }[] = [];
  private removals = 0;

  constructor(private readonly options: WorkingContextOptions<T>) {}

  get size(): ContextSize {
    return { tokens: this.items.reduce((sum, item) => sum + item.tokens, 0), messages: this.items.length };
  }

  /** Changes whenever entries are removed or replaced (never on an add): what was counted before is stale. */
  get generation(): number {
    return this.removals;
  }

  entries(): T[] {
    return this.items.map((item) => item.entry);
  }

  add(...entries: T[]): void {
    this.items.push(...entries.map((entry) => this.item(entry)));
    const { maxEntries } = this.options;
    if (maxEntries !== undefined && this.items.length > maxEntries) {
      this.items.splice(0, this.items.length - maxEntries);
      this.removals++;
    }
    this.changed();
  }

  /** Drops at least `count` entries from one end, in whole groups. */
  forget(direction: 'oldest' | 'newest', count: number): ContextFreed {
    const { startsGroup = () => true } = this.options;
    const starts = this.items.flatMap((item, index) => (startsGroup(item.entry) ? [index] : []));
    if (direction === 'oldest') return this.remove(0, starts.find((start) => start >= count) ?? this.items.length);
    const keep = this.items.length - count;
    const from = [...starts].reverse().find((start) => start <= keep) ?? 0;
    return this.remove(from, this.items.length - from);
  }

  /** Whether a compaction would fold anything: at least two entries older than the ones it keeps. */
  get compactable(): boolean {
    return this.items.length - (this.options.keepNewest ?? 0) >= 2;
  }

  /**
   * Replaces all but the newest `keepNewest` entries with one summary entry. Undefined when there was nothing to fold
   * or a removal overtook the summary; rejects when the summariser does.
   */
  async compact(signal?: AbortSignal): Promise<ContextFreed | undefined> {
    if (!this.compactable) return undefined;
    const generation = this.removals;
    const folded = this.items.slice(0, this.items.length - (this.options.keepNewest ?? 0));
    const summary = this.item(
      await this.options.summarise(
        folded.map((item) => item.entry),
        signal,
      ),
    );
    if (generation !== this.removals) return undefined;
    this.items.splice(0, folded.length, summary);
    this.removals++;
    this.changed();
    const foldedTokens = folded.reduce((sum, item) => sum + item.tokens, 0);
    // A summary may come out longer than what it folded (a model's): it freed nothing then, rather than a negative count.
    return { freedTokens: Math.max(0, foldedTokens - summary.tokens), freedMessages: folded.length - 1 };
  }

  /** Empties the context. */
  clear(): ContextFreed {
    return this.remove(0, this.items.length);
  }

  private remove(start: number, count: number): ContextFreed {
    const dropped = this.items.splice(start, count);
    if (dropped.length > 0) {
      this.removals++;
      this.changed();
    }
    return { freedTokens: dropped.reduce((sum, item) => sum + item.tokens, 0), freedMessages: dropped.length };
  }

  private item(entry: T): { entry: T; tokens: number } {
    return { entry, tokens: this.options.tokens(entry) };
  }

  private changed(): void {
    this.options.onChange?.(this.size);
  }
}
