import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MEWParticipant } from '../sdk/mew-participant';
import { DemoAgent, summariseNotes } from './demo-agent';
import { COMPACT_SUMMARY_MAX_CHARS } from './demo-defaults';
import { collect, startDemoTestSpace, type DemoTestSpace } from './testing';

describe('DemoAgent', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;

  beforeEach(async () => {
    space = await startDemoTestSpace();
    human = await space.connect('human');
  });
  afterEach(() => space.close());

  it('warns at 90% of its window and compacts by itself when the window is full', async () => {
    const statuses = collect(human, (e) => e.kind === 'participant/status' && e.from === 'auditor');
    const agent = space.track(new DemoAgent({ ...space.agentOptions('auditor'), maxTokens: 100, baseline: 'baseline', answerChat: () => 'hi' }));
    await agent.connect();
    const tenTokens = 'x'.repeat(40);
    for (let i = 0; i < 8; i++) agent.remember('thought', tenTokens); // 2 + 80 tokens: below 90%
    agent.remember('thought', tenTokens); // 92 tokens
    await expect.poll(() => statuses.map((s) => s.payload?.status)).toEqual(['active', 'near_limit']);
    expect(statuses[1].payload).toMatchObject({ tokens: 92, max_tokens: 100, messages_in_context: 10 });

    agent.remember('thought', tenTokens); // 102 tokens: over the window
    await expect.poll(() => statuses.map((s) => s.payload?.status)).toContain('compacted');
    const compacted = statuses.find((s) => s.payload?.status === 'compacted')!.payload as { tokens: number; messages_in_context: number };
    expect(compacted.messages_in_context).toBe(3);
    expect(compacted.tokens).toBeLessThan(90);
  });
});

describe('summariseNotes', () => {
  it('counts the notes by kind and quotes the start of the latest results, within a bounded length', () => {
    const notes = [
      { kind: 'task', text: 'Draft the stand-up' },
      { kind: 'result', text: 'Wrote notes/standup.md. It has 3 items' },
      { kind: 'thought', text: 'Next: action items' },
    ];
    expect(summariseNotes(notes)).toEqual({
      kind: 'summary',
      text: 'Summary of 3 earlier entries (1 task, 1 result, 1 thought). Latest results: Wrote notes/standup.',
    });
    const long = summariseNotes(Array.from({ length: 40 }, (_, i) => ({ kind: 'result', text: `result number ${i} ${'x'.repeat(200)}` })));
    expect(long.text.length).toBeLessThanOrEqual(COMPACT_SUMMARY_MAX_CHARS);
    expect(long.text.endsWith('…')).toBe(true);
  });
});
