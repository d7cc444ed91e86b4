import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../protocol';
import { nextEvent } from '../testing';
import { SUMMARY_PROMPT } from './agent-prompts';
import type { MEWAgent } from './mew-agent';
import { startAgentFixture, type AgentFixture } from './testing/agent-fixture';
import type { RecordedRequest } from './testing/scripted-openai-server';

/** Everything a request sends, as one string. */
const sent = (request: RecordedRequest) => JSON.stringify(request.body.messages);

describe('MEWAgent context: telemetry, automatic compaction and participant controls', () => {
  let fx: AgentFixture;
  beforeEach(async () => {
    fx = await startAgentFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  /** One question and its scripted answer, finished. */
  async function exchange(question: string, answer: string, usage?: { prompt_tokens: number; completion_tokens: number }) {
    fx.model.reply({ content: answer, ...(usage && { usage }) });
    await fx.ask(question).answer;
  }

  /** A control from the human to the agent, resolved with the agent's status answering it (not a compact's interim `compacting`). */
  async function control(kind: 'participant/forget' | 'participant/clear' | 'participant/compact', payload: Record<string, unknown> = {}) {
    const envelope = fx.human.send({ kind, to: ['agent'], payload } as Parameters<MEWAgent['send']>[0]);
    const answers = (e: Envelope<'participant/status'>) =>
      e.from === 'agent' && e.payload.status !== 'compacting' && (e.correlation_id?.includes(envelope.id) ?? false);
    return nextEvent(fx.human.client, 'participant/status', answers, 10_000);
  }

  it('summarises older turns into one message once the last prompt passed 80% of the window', async () => {
    const agent = await fx.startAgent({ contextWindow: 1000 });
    await exchange('first question ALPHA', 'answer one BETA', { prompt_tokens: 850, completion_tokens: 10 });
    expect(agent.telemetry.statusPayload()).toMatchObject({ tokens: 860, max_tokens: 1000, messages_in_context: 2 });

    const compacted = nextEvent(fx.human.client, 'participant/status', (e) => e.from === 'agent' && e.payload.status === 'compacted');
    fx.model.reply({ content: 'SUMMARY-XYZ: human asked about ALPHA' });
    await exchange('second question', 'answer two');

    const [, summaryRequest, next] = fx.model.requests;
    expect(summaryRequest.body.messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    expect(sent(summaryRequest)).toContain('first question ALPHA');
    expect(summaryRequest.body.tools).toBeUndefined();
    expect(sent(next)).toContain('SUMMARY-XYZ: human asked about ALPHA');
    expect(sent(next)).toContain('human: second question');
    expect(sent(next)).not.toContain('first question');
    expect(sent(next)).not.toContain('BETA');
    expect(next.body.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect((await compacted).payload).toMatchObject({ messages_in_context: 1 });
  });

  it('reports the tokens of every model call so far as total_tokens, which clearing the context does not reset', async () => {
    const agent = await fx.startAgent({ contextWindow: 1000 });
    await exchange('q1', 'a1', { prompt_tokens: 100, completion_tokens: 10 });
    await exchange('q2', 'a2', { prompt_tokens: 200, completion_tokens: 20 });
    expect(agent.telemetry.statusPayload()).toMatchObject({ tokens: 220, total_tokens: 330 });
    expect((await control('participant/clear')).payload).toMatchObject({ tokens: 0, total_tokens: 330 });
  });

  it('does not compact below the threshold', async () => {
    await fx.startAgent({ contextWindow: 1000 });
    await exchange('q1', 'a1', { prompt_tokens: 790, completion_tokens: 10 });
    await exchange('q2', 'a2');
    expect(fx.model.requests).toHaveLength(2);
    expect(sent(fx.model.requests[1])).toContain('human: q1');
  });

  it('forgets the oldest turns on participant/forget and everything on participant/clear', async () => {
    const agent = await fx.startAgent();
    await exchange('question ONE', 'reply ONE');
    await exchange('question TWO', 'reply TWO');

    expect((await control('participant/forget', { direction: 'oldest', entries: 2 })).payload).toMatchObject({ status: 'forgotten', messages_in_context: 2 });
    await exchange('question THREE', 'reply THREE');
    expect(sent(fx.model.requests[2])).not.toContain('ONE');
    expect(sent(fx.model.requests[2])).toContain('reply TWO');

    expect((await control('participant/clear')).payload).toMatchObject({ status: 'cleared', messages_in_context: 0, tokens: 0 });
    await exchange('question FOUR', 'reply FOUR');
    expect(fx.model.requests[3].body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(agent.telemetry.statusPayload().messages_in_context).toBe(2);
  });

  it('compacts on participant/compact and answers with compact-done', async () => {
    await fx.startAgent();
    await exchange('question ONE', 'reply ONE');
    const done = nextEvent(fx.human.client, 'participant/compact-done', (e) => e.from === 'agent');
    fx.model.reply({ content: 'SUMMARY of ONE' });
    expect((await control('participant/compact', { reason: 'token_pressure' })).payload).toMatchObject({ status: 'compacted', messages_in_context: 1 });
    expect((await done).payload).toMatchObject({ status: 'compacted', freed_messages: 1 });
    await exchange('question TWO', 'reply TWO');
    expect(fx.model.requests[2].body.messages.slice(1, 2)).toEqual([{ role: 'system', content: 'Summary of the earlier conversation:\nSUMMARY of ONE' }]);
  });

  it('idles, still connected, on participant/shutdown, and ends for a fresh start on participant/restart', async () => {
    const agent = await fx.startAgent();
    const idle = nextEvent(fx.human.client, 'participant/status', (e) => e.from === 'agent' && e.payload.status === 'shutdown');
    fx.human.send({ kind: 'participant/shutdown', to: ['agent'], payload: {} });
    await idle;
    expect(agent.state).toBe('shutdown');
    expect(fx.human.participants.some((peer) => peer.id === 'agent')).toBe(true);
    fx.human.send({ kind: 'participant/restart', to: ['agent'], payload: {} });
    expect(await agent.exited).toBe('restart');
    expect(agent.state).toBe('stopped');
  });

  it('skips participant/compact with nothing to compact', async () => {
    await fx.startAgent();
    const done = nextEvent(fx.human.client, 'participant/compact-done', (e) => e.from === 'agent');
    await control('participant/compact');
    expect((await done).payload).toEqual({ skipped: true, reason: 'nothing to compact' });
    expect(fx.model.requests).toHaveLength(0);
  });
});
