import { describe, expect, it } from 'vitest';
import { WorkingContext, estimateTokens, type ContextSize } from './working-context';

function filled(n: number, onChange?: (size: ContextSize) => void): WorkingContext {
  const context = new WorkingContext({ onChange });
  for (let i = 0; i < n; i++) context.add(i % 2 ? 'thought' : 'result', `entry ${i}: ${'words and more words '.repeat(5)}`);
  return context;
}

describe('WorkingContext', () => {
  it('estimates about four characters per token and reports every change', () => {
    expect(estimateTokens('12345678')).toBe(2);
    expect(estimateTokens('123456789')).toBe(3);
    const sizes: ContextSize[] = [];
    const context = filled(3, (size) => sizes.push(size));
    expect(sizes.map((s) => s.messages)).toEqual([1, 2, 3]);
    expect(context.size.tokens).toBe(context.entries().reduce((sum, e) => sum + estimateTokens(e.text), 0));
  });

  it('forgets from either end and says what it freed', () => {
    const context = filled(6);
    const [first, , , , , last] = context.entries();
    expect(context.forget('oldest', 2)).toEqual({ freedMessages: 2, freedTokens: expect.any(Number) });
    expect(context.entries()[0]).not.toBe(first);
    context.forget('newest', 1);
    expect(context.entries().at(-1)).not.toBe(last);
    expect(context.forget('oldest', 99).freedMessages).toBe(3);
    expect(context.size).toEqual({ tokens: 0, messages: 0 });
  });

  it('compacts old entries into one bounded summary, keeping the newest, and skips when that would not help', () => {
    const context = filled(12);
    const before = context.size;
    const newest = context.entries().slice(-2);
    const freed = context.compact(2)!;
    expect(context.entries()).toHaveLength(3);
    expect(context.entries()[0]).toMatchObject({ kind: 'summary', text: expect.stringMatching(/^Summary of 10 earlier entries \(5 result, 5 thought\)/) });
    expect(context.entries().slice(1)).toEqual(newest);
    expect(freed).toEqual({ freedMessages: 9, freedTokens: before.tokens - context.size.tokens });
    expect(context.compact(2)).toBeUndefined(); // only a summary left to summarise
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const context = new WorkingContext({ maxEntries: 3 });
    for (const text of ['a', 'b', 'c', 'd']) context.add('operation', text);
    expect(context.entries().map((e) => e.text)).toEqual(['b', 'c', 'd']);
    expect(context.clear()).toEqual({ freedMessages: 3, freedTokens: 3 });
  });
});
