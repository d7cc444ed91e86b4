import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, tokenOf } from '../../gateway/testing';
import { nextEvent, recordEvents } from '../testing';
import { startAgentFixture, SPACE, type AgentFixture } from './testing/agent-fixture';

describe('MEWAgent chat response strategy', () => {
  let fx: AgentFixture;
  beforeEach(async () => {
    fx = await startAgentFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers chats addressed to it or mentioning @agent, and ignores the rest, its own included', async () => {
    await fx.startAgent();
    fx.human.chat.send('hello everyone');
    fx.human.chat.send('files, anything new?', 'files');
    fx.human.chat.send('email me at x@agent.io or ask @agent-2');
    fx.model.reply({ content: 'It is noon.' });
    const mention = fx.human.chat.send('@agent what time is it?');
    const answer = await nextEvent(fx.human.client, 'chat', (e) => e.from === 'agent', 5000);

    expect(answer).toMatchObject({ to: ['human'], correlation_id: [mention.id], payload: { text: 'It is noon.' } });
    fx.model.reply({ content: 'second' });
    await fx.ask('marker').answer; // the agent's own answers did not start turns either
    expect(fx.model.requests.map((r) => r.body.messages.at(-1)?.content)).toEqual(['human: @agent what time is it?', 'human: marker']);
  });

  it('queues chats arriving during a turn and takes them together in the next one, never two loops at once', async () => {
    await fx.startAgent();
    fx.model.reply({ content: 'first answer', delayMs: 300 }, { content: 'second answer' });
    const first = fx.ask('first question');
    await fx.model.request(0);
    const second = fx.ask('second question');
    const bystander = await joinAs(fx.gw, tokenOf('bystander'), `space=${SPACE}`);
    bystander.send({ id: 'from-bystander', kind: 'chat', payload: { text: 'and @agent, me too' } });

    expect((await first.answer).payload.text).toBe('first answer');
    const answer = await second.answer;
    expect(answer).toMatchObject({ to: ['human', 'bystander'], correlation_id: [second.question.id, 'from-bystander'], payload: { text: 'second answer' } });
    expect(fx.model.requests).toHaveLength(2);
    expect(fx.model.maxConcurrent).toBe(1);
    expect(fx.model.requests[1].body.messages.at(-1)).toEqual({ role: 'user', content: 'human: second question\nbystander: and @agent, me too' });
    bystander.close();
  });

  it('holds further turns once maxRepliesPerMinute is spent', async () => {
    await fx.startAgent({ maxRepliesPerMinute: 1 });
    fx.model.reply({ content: 'one' }, { content: 'two' });
    await fx.ask('q1').answer;
    fx.ask('q2').answer.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fx.model.requests).toHaveLength(1);
  });

  it('asks the model about broadcasts when classification is on, and answers only a confident yes', async () => {
    await fx.startAgent({ classifyChats: true, classificationThreshold: 0.8 });
    fx.model.reply(
      { content: '{"respond": true, "confidence": 0.5}' },
      { content: '```json\n{"respond": true, "confidence": 0.9}\n```' },
      { content: 'Sure.' },
    );
    fx.human.chat.send('nice weather');
    await fx.model.request(0);
    const question = fx.human.chat.send('can anyone summarise the notes?');
    const answer = await nextEvent(fx.human.client, 'chat', (e) => e.from === 'agent', 5000);
    expect(answer).toMatchObject({ correlation_id: [question.id], payload: { text: 'Sure.' } });
    expect(fx.model.requests).toHaveLength(3);
    expect(fx.model.requests[1].body.messages.at(-1)).toEqual({ role: 'user', content: 'human: can anyone summarise the notes?' });
  });

  it('holds a turn that was paused mid-way and finishes it once resumed, sending nothing meanwhile', async () => {
    const agent = await fx.startAgent();
    fx.model.reply({ content: 'after the pause', delayMs: 300 });
    const { answer } = fx.ask('take your time');
    await fx.model.request(0);
    fx.human.send({ kind: 'participant/pause', to: ['agent'], payload: { reason: 'hold on' } });
    await nextEvent(agent, 'pause', (pause) => pause !== undefined);
    const refusals = recordEvents(agent.client, 'system/error');
    // Past the model's 300 ms: its answer is in, and the agent holds it instead of sending into the pause.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await Promise.race([answer.then(() => 'answered'), Promise.resolve('waiting')])).toBe('waiting');
    expect(refusals).toEqual([]);
    fx.human.send({ kind: 'participant/resume', to: ['agent'], payload: {} });
    expect((await answer).payload.text).toBe('after the pause');
  });
});
