/**
 * A scripted OpenAI-compatible chat-completions server for MEWAgent's tests: node:http on 127.0.0.1:0, answering
 * `POST /v1/chat/completions` with queued replies, as JSON or as SSE chunks (whichever the request asks for), and
 * recording every request body. Node-only; nothing the browser loads imports it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as its JSON text. */
  arguments: unknown;
}

/** One scripted answer of the model. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Streamed: send the first chunk of content, then never finish (until the client goes away). */
  hang?: boolean;
}

/** A request as received. */
export interface RecordedRequest {
  body: {
    model: string;
    messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string } }[];
    stream?: boolean;
  };
  /** Set once the client closed the connection before the answer was complete (e.g. an aborted request). */
  abortedEarly: boolean;
}

const DEFAULT_USAGE = { prompt_tokens: 10, completion_tokens: 5 };

export class ScriptedOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  /** The most requests ever in progress at once. */
  maxConcurrent = 0;
  private readonly script: ScriptedReply[] = [];
  private readonly waiters: (() => void)[] = [];
  private inProgress = 0;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private port = 0;

  /** Starts a server on an ephemeral port. */
  /** Listens on `port` (0: any free one; the end-to-end journeys give the one the server's config names). */
  static async start(port = 0): Promise<ScriptedOpenAiServer> {
    const scripted = new ScriptedOpenAiServer();
    await new Promise<void>((resolve) => scripted.server.listen(port, '127.0.0.1', resolve));
    scripted.port = (scripted.server.address() as AddressInfo).port;
    return scripted;
  }

  /** What to give MEWAgent as `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queues replies, answered in order. */
  reply(...replies: ScriptedReply[]): void {
    this.script.push(...replies);
  }

  /** Resolves with request `index` (0-based) once it has arrived. */
  async request(index: number, timeoutMs = 5000): Promise<RecordedRequest> {
    await this.until(() => this.requests.length > index, timeoutMs, `request #${index}`);
    return this.requests[index];
  }

  /** Resolves once the client closed request `index` before it was answered in full. */
  async abortedEarly(index: number, timeoutMs = 5000): Promise<void> {
    await this.until(() => this.requests[index]?.abortedEarly === true, timeoutMs, `request #${index} to be aborted`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`scripted OpenAI server: no ${what} within ${timeoutMs} ms (${this.requests.length} requests)`)),
        timeoutMs,
      );
      const check = () => {
        if (!condition()) return this.waiters.push(check);
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(check);
    });
  }

  private changed(): void {
    for (const check of this.waiters.splice(0)) check();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const recorded: RecordedRequest = { body: JSON.parse(raw), abortedEarly: false };
    this.requests.push(recorded);
    this.maxConcurrent = Math.max(this.maxConcurrent, ++this.inProgress);
    res.on('close', () => {
      this.inProgress--;
      if (!res.writableFinished) recorded.abortedEarly = true;
      this.changed();
    });
    this.changed();
    const reply = this.script.shift();
    // 400, not 500: the openai client would retry a 5xx and hide the mistake behind the retries.
    if (!reply) return void json(res, 400, { error: { message: 'scripted OpenAI server: no scripted reply left', type: 'invalid_request_error' } });
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (recorded.body.stream) return streamReply(res, recorded.body.model, reply);
    if (reply.hang) return;
    json(res, 200, completion(recorded.body.model, reply));
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function toolCallsOf(reply: ScriptedReply) {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_${index}_${call.name}`,
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
}

function usageOf(reply: ScriptedReply) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

function completion(model: string, reply: ScriptedReply) {
  const toolCalls = toolCallsOf(reply);
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? null, refusal: null, ...(toolCalls.length && { tool_calls: toolCalls }) },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: usageOf(reply),
  };
}

/** SSE the way OpenAI streams: content and each call's arguments in pieces, then finish_reason, then usage, then [DONE]. */
function streamReply(res: ServerResponse, model: string, reply: ScriptedReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model, choices, ...extra })}\n\n`);
  const delta = (value: Record<string, unknown>, finish: string | null = null) => send([{ index: 0, delta: value, finish_reason: finish }]);
  delta({ role: 'assistant', content: '' });
  const content = reply.content ?? '';
  for (const piece of halves(content)) delta({ content: piece });
  if (reply.hang) return; // the connection stays open until the client aborts
  toolCallsOf(reply).forEach((call, index) => {
    const [first, second] = halves(call.function.arguments);
    delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: first ?? '' } }] });
    if (second) delta({ tool_calls: [{ index, function: { arguments: second } }] });
  });
  delta({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
  send([], { usage: usageOf(reply) });
  res.end('data: [DONE]\n\n');
}

function halves(text: string): string[] {
  if (text.length < 2) return text ? [text] : [];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}
