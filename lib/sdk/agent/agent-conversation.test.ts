import { describe, expect, it } from 'vitest';
import { AgentConversation, type ChatMessageParam } from './agent-conversation';

const user = (content: string): ChatMessageParam => ({ role: 'user', content });
const assistant = (content: string): ChatMessageParam => ({ role: 'assistant', content });
const toolCall = (id: string): ChatMessageParam => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'files__read_file', arguments: '{}' } }],
});
const toolResult = (id: string): ChatMessageParam => ({ role: 'tool', tool_call_id: id, content: `result ${id}` });

/** Two turns, the first with a tool exchange: 7 messages. */
function twoTurns(): AgentConversation {
  const conversation = new AgentConversation();
  conversation.commit([user('q1'), toolCall('a'), toolResult('a'), assistant('a1')]);
  conversation.commit([user('q2'), toolCall('b'), toolResult('b')]);
  return conversation;
}

const contents = (conversation: AgentConversation) =>
  conversation
    .build('sys', [])
    .slice(1)
    .map((m) => m.content);

describe('AgentConversation', () => {
  it('builds system prompt, finished turns, then the turn in progress', () => {
    const conversation = twoTurns();
    const messages = conversation.build('sys', [user('q3')]);
    expect(messages[0]).toEqual({ role: 'system', content: 'sys' });
    expect(messages.at(-1)).toEqual(user('q3'));
    expect(conversation.size).toBe(7);
  });

  it('forgets from either end without separating a tool call from its result', () => {
    const oldest = twoTurns();
    expect(oldest.forget('oldest', 2)).toBe(3); // q1 and the call, plus the call's result
    expect(contents(oldest)).toEqual(['a1', 'q2', null, 'result b']);
    const newest = twoTurns();
    expect(newest.forget('newest', 1)).toBe(2); // the result, with its call
    expect(contents(newest)).toEqual(['q1', null, 'result a', 'a1', 'q2']);
    expect(twoTurns().forget('newest', 100)).toBe(7);
  });

  it('compacts finished turns (and an earlier summary) into one summary message', async () => {
    const conversation = twoTurns();
    let transcript = '';
    expect(await conversation.compact(async (text) => ((transcript = text), 'S1'))).toBe(6);
    expect(transcript).toContain('user: q1');
    expect(transcript).toContain('assistant: called files__read_file({})');
    expect(transcript).toContain('tool result: result a');
    expect(conversation.build('sys', [])[1]).toEqual({ role: 'system', content: 'Summary of the earlier conversation:\nS1' });
    conversation.commit([user('q3'), assistant('a3')]);
    await conversation.compact(async (text) => ((transcript = text), 'S2'));
    expect(transcript.startsWith('Summary of the earlier conversation:\nS1')).toBe(true);
    expect(contents(conversation)).toEqual(['Summary of the earlier conversation:\nS2']);
  });

  it('keeps turns finished during a compaction, and drops a compaction overtaken by clear', async () => {
    const conversation = twoTurns();
    let finish!: (summary: string) => void;
    const compacting = conversation.compact(() => new Promise((resolve) => (finish = resolve)));
    conversation.commit([user('late')]);
    finish('S');
    await compacting;
    expect(contents(conversation)).toEqual(['Summary of the earlier conversation:\nS', 'late']);

    const cleared = twoTurns();
    const overtaken = cleared.compact(() => new Promise((resolve) => (finish = resolve)));
    expect(cleared.clear()).toBe(7);
    finish('stale');
    expect(await overtaken).toBeUndefined();
    expect(cleared.isEmpty).toBe(true);
  });
});
