import { describe, expect, it } from 'vitest';
import { estimateTokens, WorkingContext, type ContextSize, type WorkingContextOptions } from './working-context';

/** Strings as entries; a summary says how many it folded. */
const notes = (extra: Partial<WorkingContextOptions<string>> = {}): WorkingContext<string> =>
  new WorkingContext<string>({ tokens: estimateTokens, summarise: (folded) => `summary of ${folded.length}`, ...extra });

function filled(n: number, extra: Partial<WorkingContextOptions<string>> = {}): WorkingContext<string> {
  const context = notes(extra);
  for (let i = 0; i < n; i++) context.add(`entry ${i}: ${'words and more words '.repeat(5)}`);
  return context;
}

describe('WorkingContext', () => {
  it('estimates about four characters per token and reports every change', () => {
    expect(estimateTokens('12345678')).toBe(2);
    expect(estimateTokens('123456789')).toBe(3);
    const sizes: ContextSize[] = [];
    const context = filled(3, { onChange: (size) => sizes.push(size) });
    expect(sizes.map((s) => s.messages)).toEqual([1, 2, 3]);
    expect(context.size.tokens).toBe(context.entries().reduce((sum, e) => sum + estimateTokens(e), 0));
  });

  it('forgets from either end and says what it freed; only removals change the generation', () => {
    const context = filled(6);
    const [first, , , , , last] = context.entries();
    expect(context.generation).toBe(0);
    expect(context.forget('oldest', 2)).toEqual({ freedMessages: 2, freedTokens: 2 * estimateTokens(first) });
    expect(context.generation).toBe(1);
    expect(context.entries()[0]).not.toBe(first);
    context.forget('newest', 1);
    expect(context.entries().at(-1)).not.toBe(last);
    expect(context.forget('oldest', 99).freedMessages).toBe(3);
    expect(context.size).toEqual({ tokens: 0, messages: 0 });
  });

  it('compacts all but the newest entries into one summary, and skips with fewer than two to fold', async () => {
    const context = filled(12, { keepNewest: 2 });
    const before = context.size;
    const newest = context.entries().slice(-2);
    const freed = await context.compact();
    expect(context.entries()).toEqual(['summary of 10', ...newest]);
    expect(freed).toEqual({ freedMessages: 9, freedTokens: before.tokens - context.size.tokens });
    expect(context.compactable).toBe(false); // only the summary is older than the two it keeps
    expect(await context.compact()).toBeUndefined();
  });

  it('keeps entries added during a compaction, and drops a compaction a removal overtook', async () => {
    let finish!: (summary: string) => void;
    const slow = { summarise: () => new Promise<string>((resolve) => (finish = resolve)) };
    const context = filled(3, slow);
    const compacting = context.compact();
    context.add('late');
    finish('S');
    expect(await compacting).toMatchObject({ freedMessages: 2 });
    expect(context.entries()).toEqual(['S', 'late']);

    const overtaken = filled(3, slow);
    const stale = overtaken.compact();
    overtaken.forget('newest', 1);
    finish('stale');
    expect(await stale).toBeUndefined();
    expect(overtaken.size.messages).toBe(2);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const context = notes({ maxEntries: 3 });
    for (const text of ['a', 'b', 'c', 'd']) context.add(text);
    expect(context.entries()).toEqual(['b', 'c', 'd']);
    expect(context.generation).toBe(1);
    expect(context.clear()).toEqual({ freedMessages: 3, freedTokens: 3 });
  });
});
