import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { estimateTokens, type WorkingContextOptions } from './working-context';

export type ChatMessageParam = ChatCompletionMessageParam;

/** Turns older messages into a summary's text (a model call). */
export type Summarise = (transcript: string, signal?: AbortSignal) => Promise<string>;

const SUMMARY_HEADING = 'Summary of the earlier conversation:';

/**
 * A model conversation as a working context: finished turns as chat messages, compacted into one system message
 * that summarises them. The turn in progress is kept by the loop and joined by `requestMessages`, so forget, clear
 * and compaction, which may arrive mid-turn, only touch finished turns; forget never separates an assistant's tool
 * calls from their results.
 *
 * @example
 * const context = new WorkingContext(conversationContext(summarise));
 * context.add({ role: 'user', content: 'alice: hi' }, { role: 'assistant', content: 'hello' });
 * requestMessages('You are helpful', context.entries(), [{ role: 'user', content: 'alice: and now?' }]); // system, 2 old, 1 new
 */
export function conversationContext(summarise: Summarise): WorkingContextOptions<ChatMessageParam> {
  return {
    tokens: (message) => estimateTokens(JSON.stringify(message)),
    startsGroup: (message) => message.role !== 'tool',
    summarise: async (messages, signal) => ({
      role: 'system',
      content: `${SUMMARY_HEADING}\n${await summarise(messages.map(describe).join('\n\n'), signal)}`,
    }),
  };
}

/** The messages of a request: system prompt, the context (summary and finished turns), then the turn in progress. */
export function requestMessages(system: string, context: readonly ChatMessageParam[], turn: readonly ChatMessageParam[]): ChatMessageParam[] {
  return [{ role: 'system', content: system }, ...context, ...turn];
}

/** One message as transcript text for the summariser (an earlier summary as it stands). */
function describe(message: ChatMessageParam): string {
  const { content } = message;
  const text = content == null ? '' : typeof content === 'string' ? content : JSON.stringify(content);
  if (message.role === 'system') return text;
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const calls = message.tool_calls.map((call) => (call.type === 'function' ? `${call.function.name}(${call.function.arguments})` : call.type));
    return `assistant: ${text ? `${text}\n` : ''}called ${calls.join(', ')}`;
  }
  return `${message.role === 'tool' ? 'tool result' : message.role}: ${text}`;
}
