import { describe, expect, it } from 'vitest';
import { conversationContext, requestMessages, type ChatMessageParam, type Summarise } from './agent-conversation';
import { WorkingContext } from './working-context';

const user = (content: string): ChatMessageParam => ({ role: 'user', content });
const assistant = (content: string): ChatMessageParam => ({ role: 'assistant', content });
const toolCall = (id: string): ChatMessageParam => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'files__read_file', arguments: '{}' } }],
});
const toolResult = (id: string): ChatMessageParam => ({ role: 'tool', tool_call_id: id, content: `result ${id}` });

/** Two turns, the first with a tool exchange: 7 messages. */
function twoTurns(summarise: Summarise = async () => 'S'): WorkingContext<ChatMessageParam> {
  const context = new WorkingContext(conversationContext(summarise));
  context.add(user('q1'), toolCall('a'), toolResult('a'), assistant('a1'));
  context.add(user('q2'), toolCall('b'), toolResult('b'));
  return context;
}

const contents = (context: WorkingContext<ChatMessageParam>) => context.entries().map((m) => m.content);

describe('a conversation as a working context', () => {
  it('builds a request: system prompt, finished turns, then the turn in progress', () => {
    const context = twoTurns();
    const messages = requestMessages('sys', context.entries(), [user('q3')]);
    expect(messages[0]).toEqual({ role: 'system', content: 'sys' });
    expect(messages.at(-1)).toEqual(user('q3'));
    expect(context.size.messages).toBe(7);
  });

  it('forgets from either end without separating a tool call from its result', () => {
    const oldest = twoTurns();
    expect(oldest.forget('oldest', 2).freedMessages).toBe(3); // q1 and the call, plus the call's result
    expect(contents(oldest)).toEqual(['a1', 'q2', null, 'result b']);
    const newest = twoTurns();
    expect(newest.forget('newest', 1).freedMessages).toBe(2); // the result, with its call
    expect(contents(newest)).toEqual(['q1', null, 'result a', 'a1', 'q2']);
    expect(twoTurns().forget('newest', 100).freedMessages).toBe(7);
  });

  it('compacts finished turns (and an earlier summary) into one summary message', async () => {
    let transcript = '';
    let summary = 'S1';
    const context = twoTurns(async (text) => ((transcript = text), summary));
    expect(await context.compact()).toMatchObject({ freedMessages: 6 });
    expect(transcript).toContain('user: q1');
    expect(transcript).toContain('assistant: called files__read_file({})');
    expect(transcript).toContain('tool result: result a');
    expect(context.entries()).toEqual([{ role: 'system', content: 'Summary of the earlier conversation:\nS1' }]);
    context.add(user('q3'), assistant('a3'));
    summary = 'S2';
    await context.compact();
    expect(transcript.startsWith('Summary of the earlier conversation:\nS1')).toBe(true);
    expect(contents(context)).toEqual(['Summary of the earlier conversation:\nS2']);
  });
});
