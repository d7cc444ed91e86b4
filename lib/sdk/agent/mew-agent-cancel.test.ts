import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextEvent } from '../testing';
import type { AgentTurn } from './mew-agent';
import { startAgentFixture, type AgentFixture } from './testing/agent-fixture';

describe('MEWAgent cancellation', () => {
  let fx: AgentFixture;
  beforeEach(async () => {
    fx = await startAgentFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('aborts the streamed model request in flight on reasoning/cancel, and tells the asker it stopped', async () => {
    const agent = await fx.startAgent();
    const turn = new Promise<AgentTurn>((resolve) => agent.onTurn(resolve));
    fx.model.reply({ content: 'Let me think about this at great length', hang: true });
    const started = nextEvent(fx.human.client, 'reasoning/start', (e) => e.from === 'agent');
    const { question, answer } = fx.ask('Think hard');
    const start = await started;
    await fx.model.request(0);

    fx.human.send({ kind: 'reasoning/cancel', context: start.id, payload: { reason: 'enough' } });
    await fx.model.abortedEarly(0);
    expect(await answer).toMatchObject({ to: ['human'], correlation_id: [question.id], payload: { text: 'I stopped: cancelled by human (enough)' } });
    expect(await turn).toMatchObject({ outcome: 'cancelled', reasoningId: start.id });

    // The loop is free again, and the cancelled question stays in context with its outcome.
    fx.model.reply({ content: 'ok' });
    await fx.ask('Next').answer;
    expect(fx.model.requests[1].body.messages.slice(-3)).toEqual([
      { role: 'user', content: 'human: Think hard' },
      { role: 'assistant', content: '(stopped: cancelled by human (enough))' },
      { role: 'user', content: 'human: Next' },
    ]);
  });

  it('stops waiting for a tool call when cancelled while its proposal is pending, and withdraws the proposal', async () => {
    const agent = await fx.startAgent();
    const turn = new Promise<AgentTurn>((resolve) => agent.onTurn(resolve));
    const proposed = nextEvent(fx.human, 'proposal', (p) => p.state === 'pending');
    const withdrawn = nextEvent(fx.human, 'proposal', (p) => p.state === 'withdrawn');
    const started = nextEvent(fx.human.client, 'reasoning/start', (e) => e.from === 'agent');
    fx.model.reply({ toolCalls: [{ name: 'files__write_file', arguments: { path: 'c.txt', text: 'c' } }] });
    fx.ask('Write c.txt');
    await proposed;
    fx.human.send({ kind: 'reasoning/cancel', context: (await started).id, payload: {} });
    expect((await turn).outcome).toBe('cancelled');
    expect(fx.model.requests).toHaveLength(1);
    // Nobody can approve what the agent no longer wants.
    expect((await withdrawn).id).toBe((await proposed).id);
  });
});
