import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JSONRPC_ERROR_CODES } from '../../protocol';
import { McpError } from '../sdk-errors';
import { nextEvent, recordEvents } from '../testing';
import { startAgentFixture, type AgentFixture } from './testing/agent-fixture';
import type { RecordedRequest } from './testing/scripted-openai-server';

/** The tool results a request carries, in order. */
function toolResults(request: RecordedRequest): string[] {
  return request.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

describe('MEWAgent ReAct loop', () => {
  let fx: AgentFixture;
  beforeEach(async () => {
    fx = await startAgentFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  describe.each([true, false])('with stream: %s', (stream) => {
    it('calls two tools of another participant in turn, reasons out loud, then answers the asker', async () => {
      const agent = await fx.startAgent({ stream, contextWindow: 32_000 });
      const reasoningKinds = recordEvents(fx.human.client, 'message');
      fx.model.reply(
        { content: 'Reading the file first.', toolCalls: [{ name: 'files__read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'files__read_notes', arguments: {} }], usage: { prompt_tokens: 300, completion_tokens: 20 } },
        { content: 'a.txt says hello and your notes say buy milk.', usage: { prompt_tokens: 400, completion_tokens: 30 } },
      );
      const { question, answer } = fx.ask('What is in a.txt and in my notes?');

      expect(await answer).toMatchObject({ to: ['human'], correlation_id: [question.id], payload: { text: 'a.txt says hello and your notes say buy milk.' } });
      const [first, second, third] = fx.model.requests;
      expect(fx.model.requests).toHaveLength(3);
      expect(first.body.stream ?? false).toBe(stream);
      expect(first.body.tools?.map((t) => t.function.name).sort()).toEqual(['files__read_file', 'files__read_notes', 'files__write_file']);
      expect(first.body.messages.at(-1)).toEqual({ role: 'user', content: `human: What is in a.txt and in my notes?` });
      expect(toolResults(second)).toEqual(['contents of a.txt: hello']);
      expect(toolResults(third)).toEqual(['contents of a.txt: hello', 'buy milk']);
      expect(third.body.messages.filter((m) => m.role === 'assistant').map((m) => m.tool_calls?.length)).toEqual([1, 1]);

      const start = reasoningKinds.find((e) => e.kind === 'reasoning/start' && e.from === 'agent');
      expect(start?.correlation_id).toEqual([question.id]);
      const sequence = reasoningKinds.filter((e) => e.from === 'agent' && e.kind.startsWith('reasoning/') && e.context === start?.id);
      expect(sequence.map((e) => [e.kind, (e.payload as { message?: string }).message])).toEqual([
        ['reasoning/thought', 'Reading the file first.'],
        ['reasoning/thought', 'Calling files__read_notes'],
        ['reasoning/conclusion', 'Answered after 3 model call(s).'],
      ]);
      expect(reasoningKinds.some((e) => e.kind === 'chat/acknowledge' && e.from === 'agent' && e.correlation_id?.[0] === question.id)).toBe(true);
      expect(agent.telemetry.statusPayload()).toMatchObject({ tokens: 430, max_tokens: 32_000, messages_in_context: 6 });
    });
  });

  it('mirrors the model’s tokens as they stream and its thoughts into a stream linked to the reasoning, closed when it concludes', async () => {
    await fx.startAgent();
    const frames = recordEvents(fx.human.client, 'stream/data');
    const opened = nextEvent(fx.human, 'streams', (list) => list.some((s) => s.owner === 'agent'));
    fx.model.reply({ content: 'Checking the notes.', toolCalls: [{ name: 'files__read_notes', arguments: {} }] }, { content: 'Buy milk.', delayMs: 200 });
    const started = nextEvent(fx.human.client, 'reasoning/start', (e) => e.from === 'agent');
    const { answer } = fx.ask('notes?');
    const stream = (await opened).find((s) => s.owner === 'agent')!;
    expect(stream.description).toBe(`reasoning ${(await started).id}`);
    await answer;
    // The scripted server streams each text in two pieces: token deltas as plain text, each thought as one JSON frame.
    expect(frames.filter((f) => f.streamId === stream.id).map((f) => f.data)).toEqual([
      'Checking ',
      'the notes.',
      JSON.stringify({ message: 'Checking the notes.' }),
      'Buy ',
      'milk.',
    ]);
    await expect.poll(() => fx.human.streams.active()).toEqual([]);
  });

  it('proposes a call it may not make, and continues with the result once the human fulfils it', async () => {
    await fx.startAgent();
    fx.human.on('proposal', (p) => {
      if (p.state === 'pending') void fx.human.proposals.fulfil(p.id).outcome;
    });
    const proposalSeen = nextEvent(fx.human.client, 'mcp/proposal');
    fx.model.reply({ toolCalls: [{ name: 'files__write_file', arguments: { path: 'b.txt', text: 'hi' } }] }, { content: 'Wrote b.txt.' });
    const { answer } = fx.ask('Write hi into b.txt');

    expect((await answer).payload.text).toBe('Wrote b.txt.');
    expect(await proposalSeen).toMatchObject({
      from: 'agent',
      to: ['files'],
      payload: { method: 'tools/call', params: { name: 'write_file', arguments: { path: 'b.txt', text: 'hi' } } },
    });
    expect(fx.written.get('b.txt')).toBe('hi');
    expect(toolResults(fx.model.requests[1])).toEqual(['wrote b.txt']);
  });

  it('hears a rejection, with its reason and explanation, as an observation and carries on', async () => {
    await fx.startAgent();
    fx.human.on('proposal', (p) => {
      if (p.state === 'pending') fx.human.proposals.reject(p.id, 'unsafe', 'that path is outside the project');
    });
    fx.model.reply(
      { toolCalls: [{ name: 'files__write_file', arguments: { path: '/etc/passwd', text: 'x' } }] },
      { content: 'I was not allowed to write it.' },
    );
    const { answer } = fx.ask('Write x into /etc/passwd');

    expect((await answer).payload.text).toBe('I was not allowed to write it.');
    expect(toolResults(fx.model.requests[1])).toEqual(['The call was rejected by human: unsafe — that path is outside the project']);
    expect(fx.written.size).toBe(0);
    // The explanation chat is addressed to the agent, but it is not a new question.
    fx.model.reply({ content: 'ok' });
    const { answer: marker } = fx.ask('marker');
    await marker;
    expect(fx.model.requests).toHaveLength(3);
    expect(fx.model.requests[2].body.messages.at(-1)).toEqual({ role: 'user', content: 'human: marker' });
  });

  it('turns an unknown tool, bad arguments and a JSON-RPC error into observations', async () => {
    await fx.startAgent();
    fx.model.reply(
      {
        toolCalls: [
          { name: 'files__delete_all', arguments: {} },
          { name: 'files__read_file', arguments: '{not json' },
        ],
      },
      {
        toolCalls: [
          { name: 'files__read_file', arguments: { path: 'a.txt' } },
          { name: 'files__read_notes', arguments: {} },
        ],
      },
      { content: 'done' },
    );
    fx.files.tools.register({
      name: 'read_file',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    fx.files.tools.register({
      name: 'read_notes',
      execute: () => {
        throw new McpError(JSONRPC_ERROR_CODES.invalidParams, 'no notes today');
      },
    });
    const { answer } = fx.ask('try things');
    await answer;
    expect(toolResults(fx.model.requests[1])).toEqual([
      'There is no tool named files__delete_all; use one of the functions offered.',
      'The arguments of files__read_file were not valid JSON: {not json',
    ]);
    expect(toolResults(fx.model.requests[2]).slice(2)).toEqual([
      'The tool reported an error: disk on fire',
      'The call failed with JSON-RPC error -32602: no notes today',
    ]);
  });

  it('answers with what it has once maxIterations is spent, without offering tools', async () => {
    await fx.startAgent({ maxIterations: 1, prompts: { respond: 'Out of steps: answer {input} now.' } });
    fx.model.reply({ toolCalls: [{ name: 'files__read_notes', arguments: {} }] }, { content: 'Your notes say buy milk.' });
    const { answer } = fx.ask('notes?');
    expect((await answer).payload.text).toBe('Your notes say buy milk.');
    const last = fx.model.requests[1].body;
    expect(last.tools).toBeUndefined();
    expect(last.messages.at(-1)).toEqual({ role: 'system', content: 'Out of steps: answer human: notes? now.' });
  });
});
