import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MEWParticipant } from '../sdk/mew-participant';
import { AgentRuntime } from './agent-runtime';
import { collect, startDemoTestSpace, type DemoTestSpace } from './testing';

describe('AgentRuntime', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;

  beforeEach(async () => {
    space = await startDemoTestSpace();
    human = await space.connect('human');
  });
  afterEach(() => space.close());

  it('warns at 90% of its window and compacts by itself when the window is full', async () => {
    const statuses = collect(human, (e) => e.kind === 'participant/status' && e.from === 'auditor');
    const runtime = space.track(new AgentRuntime({ ...space.agentOptions('auditor'), maxTokens: 100, baseline: 'baseline', answerChat: () => 'hi' }));
    await runtime.connect();
    const tenTokens = 'x'.repeat(40);
    for (let i = 0; i < 8; i++) runtime.remember('thought', tenTokens); // 2 + 80 tokens: below 90%
    runtime.remember('thought', tenTokens); // 92 tokens
    await expect.poll(() => statuses.map((s) => s.payload?.status)).toEqual(['active', 'near_limit']);
    expect(statuses[1].payload).toMatchObject({ tokens: 92, max_tokens: 100, messages_in_context: 10 });

    runtime.remember('thought', tenTokens); // 102 tokens: over the window
    await expect.poll(() => statuses.map((s) => s.payload?.status)).toContain('auto_compacted');
    const compacted = statuses.find((s) => s.payload?.status === 'auto_compacted')!.payload as { tokens: number; messages_in_context: number };
    expect(compacted.messages_in_context).toBe(3);
    expect(compacted.tokens).toBeLessThan(90);
  });
});
