import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { CHARS_PER_TOKEN_ESTIMATE } from './agent-options';

export type ChatMessageParam = ChatCompletionMessageParam;

/** Turns older messages into one summary (a model call). */
export type Summarise = (transcript: string) => Promise<string>;

const SUMMARY_HEADING = 'Summary of the earlier conversation:';

/**
 * What the agent remembers between turns: finished turns (`history`) and at most one summary of what compaction
 * folded away. The turn in progress is kept by the loop and passed to `build`, so forget, clear and compaction,
 * which may arrive mid-turn, only touch finished turns and never split an assistant's tool calls from their results.
 *
 * @example
 * const conversation = new AgentConversation();
 * conversation.commit([{ role: 'user', content: 'alice: hi' }, { role: 'assistant', content: 'hello' }]);
 * conversation.build('You are helpful', [{ role: 'user', content: 'alice: and now?' }]); // system, 2 old, 1 new
 */
export class AgentConversation {
  private history: ChatMessageParam[] = [];
  private summary?: string;
  /** Bumped by forget and clear, so a compaction that was summarising what they removed does not bring it back. */
  private generation = 0;

  /** The messages of a request: system prompt, summary, finished turns, then the turn in progress. */
  build(system: string, turn: readonly ChatMessageParam[]): ChatMessageParam[] {
    return [
      { role: 'system', content: system },
      ...(this.summary === undefined ? [] : [{ role: 'system' as const, content: `${SUMMARY_HEADING}\n${this.summary}` }]),
      ...this.history,
      ...turn,
    ];
  }

  /** Adds a finished turn. */
  commit(turn: readonly ChatMessageParam[]): void {
    this.history.push(...turn);
  }

  /** Messages in context besides the system prompt (`messages_in_context`). */
  get size(): number {
    return this.history.length + (this.summary === undefined ? 0 : 1);
  }

  get isEmpty(): boolean {
    return this.size === 0;
  }

  /** A rough token count of what `build` would send, until the API reports the real one. */
  estimateTokens(system: string, turn: readonly ChatMessageParam[] = []): number {
    return Math.ceil(JSON.stringify(this.build(system, turn)).length / CHARS_PER_TOKEN_ESTIMATE);
  }

  /**
   * Drops at least `entries` messages from one end, in whole groups (an assistant message with its tool results).
   * Returns how many went.
   */
  forget(direction: 'oldest' | 'newest', entries = 1): number {
    const starts = this.history.flatMap((message, index) => (message.role === 'tool' ? [] : [index]));
    let cut: number;
    if (direction === 'oldest') {
      cut = starts.find((start) => start >= entries) ?? this.history.length;
      this.history = this.history.slice(cut);
    } else {
      const keep = this.history.length - entries;
      cut = this.history.length - ([...starts].reverse().find((start) => start <= keep) ?? 0);
      this.history = this.history.slice(0, this.history.length - cut);
    }
    this.generation++;
    return cut;
  }

  /** Forgets everything, summary included. Returns how many messages went. */
  clear(): number {
    const freed = this.size;
    this.history = [];
    this.summary = undefined;
    this.generation++;
    return freed;
  }

  /**
   * Replaces the finished turns (and any earlier summary) with one summary. Turns finished while the summary is
   * being written are kept after it. Returns the messages freed, or undefined when there was nothing to compact or
   * a forget/clear changed the history meanwhile.
   */
  async compact(summarise: Summarise): Promise<number | undefined> {
    const count = this.history.length;
    if (count === 0) return undefined;
    const generation = this.generation;
    const previous = this.summary === undefined ? [] : [`${SUMMARY_HEADING}\n${this.summary}`];
    const summary = await summarise([...previous, ...this.history.map(describe)].join('\n\n'));
    if (generation !== this.generation) return undefined;
    const freed = this.size - 1;
    this.history = this.history.slice(count);
    this.summary = summary;
    return freed;
  }
}

/** One message as transcript text for the summariser. */
function describe(message: ChatMessageParam): string {
  const { content } = message;
  const text = content == null ? '' : typeof content === 'string' ? content : JSON.stringify(content);
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const calls = message.tool_calls.map((call) => (call.type === 'function' ? `${call.function.name}(${call.function.arguments})` : call.type));
    return `assistant: ${text ? `${text}\n` : ''}called ${calls.join(', ')}`;
  }
  return `${message.role === 'tool' ? 'tool result' : message.role}: ${text}`;
}
