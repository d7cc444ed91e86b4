import OpenAI from 'openai';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ChatMessageParam } from './agent-conversation';
import { KEYLESS_API_KEY, OPENAI_BASE_URL, type AgentSettings } from './agent-options';

/** A function call the model asked for; `arguments` is the model's JSON text, unparsed. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One model answer, the same whether it was streamed or not. */
export interface Completion {
  content: string;
  toolCalls: ModelToolCall[];
  /** The API's `usage`, when it sent one. */
  usage?: { promptTokens: number; completionTokens: number };
  latencyMs: number;
}

export interface CompleteOptions {
  tools?: ChatCompletionFunctionTool[];
  /** Aborts the HTTP request (a `reasoning/cancel`). */
  signal?: AbortSignal;
  /** Each piece of the answer's text as it streams in (streaming only). */
  onContent?: (piece: string) => void;
}

/**
 * One OpenAI-compatible chat-completions endpoint, through the official `openai` package (which runs in browsers
 * too, hence `dangerouslyAllowBrowser`: the key is the operator's, handed to this agent on purpose).
 *
 * @example
 * const model = new ChatModel({ model: 'gpt-4o-mini', apiKey, stream: true });
 * const { content, toolCalls, usage } = await model.complete([{ role: 'user', content: 'hi' }]);
 */
export class ChatModel {
  private readonly client: OpenAI;

  constructor(private readonly settings: Pick<AgentSettings, 'model' | 'baseUrl' | 'apiKey' | 'stream'>) {
    this.client = new OpenAI({
      baseURL: settings.baseUrl ?? OPENAI_BASE_URL,
      apiKey: settings.apiKey ?? KEYLESS_API_KEY,
      dangerouslyAllowBrowser: true,
    });
  }

  async complete(messages: ChatMessageParam[], options: CompleteOptions = {}): Promise<Completion> {
    const started = Date.now();
    const body = { model: this.settings.model, messages, ...(options.tools?.length && { tools: options.tools }) };
    const request = { signal: options.signal };
    const answer = this.settings.stream
      ? await this.streamed(body, request, options.onContent)
      : fromMessage(await this.client.chat.completions.create({ ...body, stream: false }, request));
    return { ...answer, latencyMs: Date.now() - started };
  }

  /** Accumulates the deltas: content, tool calls by index (names and arguments arrive in pieces), usage last. */
  private async streamed(
    body: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'>,
    request: { signal?: AbortSignal },
    onContent?: (piece: string) => void,
  ): Promise<Omit<Completion, 'latencyMs'>> {
    const stream = await this.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, request);
    let content = '';
    const calls: ModelToolCall[] = [];
    let usage: Completion['usage'];
    for await (const chunk of stream) {
      if (chunk.usage) usage = usageOf(chunk.usage);
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) {
        content += delta.content;
        onContent?.(delta.content);
      }
      for (const part of delta?.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
        call.id ||= part.id ?? '';
        call.name += part.function?.name ?? '';
        call.arguments += part.function?.arguments ?? '';
      }
    }
    // An aborted stream ends its iteration quietly instead of throwing: a cut-off answer must not pass as complete.
    request.signal?.throwIfAborted();
    // Some compatible servers stream calls without ids; the ids only need to pair each call with its result.
    const toolCalls = calls.filter(Boolean).map((call, index) => ({ ...call, id: call.id || `call_${index}` }));
    return { content, toolCalls, ...(usage && { usage }) };
  }
}

function fromMessage(response: OpenAI.Chat.ChatCompletion): Omit<Completion, 'latencyMs'> {
  const message = response.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((call, index) =>
    call.type === 'function' ? [{ id: call.id || `call_${index}`, name: call.function.name, arguments: call.function.arguments }] : [],
  );
  return { content: message?.content ?? '', toolCalls, ...(response.usage && { usage: usageOf(response.usage) }) };
}

function usageOf(usage: OpenAI.CompletionUsage): NonNullable<Completion['usage']> {
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}
