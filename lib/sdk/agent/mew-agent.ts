import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { AnyEnvelope } from '../../protocol';
import { EventHub, type Unsubscribe } from '../event-hub';
import type { ReasoningHandle } from '../reasoning-session';
import { conversationContext, requestMessages, type ChatMessageParam } from './agent-conversation';
import {
  assertAgentConfigured,
  DISCOVERY_WAIT_MS,
  EMPTY_ANSWER_TEXT,
  REPLY_RATE_WINDOW_MS,
  resolveAgentSettings,
  type AgentSettings,
  type MEWAgentOptions,
} from './agent-options';
import { CLASSIFY_PROMPT, DEFAULT_PROMPTS, renderPrompt, SUMMARY_PROMPT } from './agent-prompts';
import { AgentRuntime } from './agent-runtime';
import { endTurn, startTurn, traceModelCall, type ModelScope, type TurnTrace } from './agent-tracing';
import { ChatModel, type Completion } from './chat-model';
import { chatVerdict, classificationSaysRespond, ReplyRateLimiter, type ChatVerdict, type IncomingChat } from './chat-response-strategy';
import { RejectionExplanations } from './rejection-explanations';
import { SpaceToolBridge } from './space-tool-bridge';
import { estimateTokens } from './working-context';

/** How one turn ended: the chats it took and the answer sent, or why there was none. */
export interface AgentTurn {
  chats: IncomingChat[];
  outcome: 'answered' | 'cancelled' | 'failed';
  /** The chat text sent to the askers. */
  answer: string;
  /** The `reasoning/start` id, when the agent may reason out loud. */
  reasoningId?: string;
  error?: Error;
}

interface QueuedChat {
  chat: IncomingChat;
  verdict: Exclude<ChatVerdict, 'ignore'>;
}

/**
 * Layer 3 of the SDK (spec "Layer 3: MEWAgent"): a participant that answers chats with a ReAct loop over any
 * OpenAI-compatible chat-completions endpoint. Each turn takes every chat queued for it (addressed to it, or
 * mentioning `@id`), reasons out loud (`reasoning/start`, a thought per step, a conclusion), calls other
 * participants' discovered tools (proposing when it may not call them, and hearing a rejection as an observation),
 * then answers the askers in a chat correlated to their messages. One turn at a time; chats that arrive meanwhile
 * wait for the next. A `reasoning/cancel` aborts the model request in flight. It runs on `AgentRuntime`: its finished
 * turns are the working context, reported from the API's usage and compacted by the model near the window;
 * `participant/forget`, `compact` and `clear` change what the model is sent next; a pause holds the turn, a restart
 * ends the agent (`exited`) and a shutdown idles it.
 *
 * @example
 * MEWAgent.assertConfigured({ apiKey: process.env.OPENAI_API_KEY });
 * const agent = new MEWAgent({ gateway, space: 'demo', token, model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
 * agent.onTurn((turn) => console.log(turn.outcome, turn.answer));
 * await agent.connect();
 */
export class MEWAgent extends AgentRuntime<ChatMessageParam> {
  /** Throws `AgentConfigurationError` when neither an API key nor an endpoint is given (see `assertAgentConfigured`). */
  static assertConfigured(options: { baseUrl?: string; apiKey?: string }): void {
    assertAgentConfigured(options);
  }

  readonly settings: AgentSettings;
  private readonly chatModel: ChatModel;
  private readonly explanations = new RejectionExplanations();
  private readonly spaceTools: SpaceToolBridge;
  private readonly limiter: ReplyRateLimiter;
  private readonly turnHub = new EventHub<{ turn: AgentTurn }>();
  private queue: QueuedChat[] = [];
  private busy = false;
  private wakeTimer?: ReturnType<typeof setTimeout>;
  private currentTurn?: AbortController;
  /** The turn's span (agent-tracing.ts), which its model and tool calls start under. */
  private turnTrace?: TurnTrace;
  /** Tokens every model call of this session consumed, as the API counted them: what a budget counts. */
  private totalTokens = 0;

  constructor(options: MEWAgentOptions) {
    const settings = resolveAgentSettings(options);
    // Summaries are model calls, which need `this`; super() must create it first, and no summary runs before then.
    let self: MEWAgent | undefined;
    super({
      // The ReAct loop calls others' tools: it needs them discovered (participants opt in, spec "Auto-discovery").
      autoDiscovery: true,
      ...options,
      maxTokens: settings.contextWindow,
      context: conversationContext((transcript, signal) => self!.summarise(transcript, signal)),
    });
    self = this;
    this.settings = settings;
    this.chatModel = new ChatModel(settings);
    this.spaceTools = new SpaceToolBridge(this, this.explanations, options.space);
    this.limiter = new ReplyRateLimiter(settings.maxRepliesPerMinute, REPLY_RATE_WINDOW_MS);
    this.client.on('message', (envelope) => this.intake(envelope));
    this.on('pause', (pause) => pause === undefined && this.pump());
  }

  /**
   * Subscribes to finished turns (answered, cancelled or failed).
   *
   * @example
   * agent.onTurn(({ outcome, answer }) => log(outcome, answer));
   */
  onTurn(listener: (turn: AgentTurn) => void): Unsubscribe {
    return this.turnHub.on('turn', listener);
  }

  /** Also drops queued chats and aborts the turn in flight. */
  override disconnect(): void {
    clearTimeout(this.wakeTimer);
    this.queue = [];
    this.currentTurn?.abort();
    super.disconnect();
  }

  // ── Which chats, and when ────────────────────────────────────────────────────────────────────────────

  private intake(envelope: AnyEnvelope): void {
    const me = this.id;
    if (this.explanations.observe(envelope, me)) return this.acknowledge(envelope);
    if (envelope.kind !== 'chat' || me === undefined) return;
    const chat: IncomingChat = { id: envelope.id, from: envelope.from, ...(envelope.to && { to: envelope.to }), text: envelope.payload.text };
    const verdict = chatVerdict(chat, me, { classify: this.settings.classifyChats });
    if (verdict === 'ignore') return;
    this.queue.push({ chat, verdict });
    this.pump();
  }

  /** Starts the next turn with everything queued, unless one is running, I am not active, or the rate limit says wait. */
  private pump(): void {
    if (this.busy || this.queue.length === 0 || this.state !== 'active') return;
    const waitMs = this.limiter.waitMs(Date.now());
    if (waitMs > 0) {
      this.wakeTimer ??= setTimeout(() => {
        this.wakeTimer = undefined;
        this.pump();
      }, waitMs);
      return;
    }
    this.busy = true;
    const taken = this.queue.splice(0);
    void this.takeTurn(taken).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  private async takeTurn(queued: QueuedChat[]): Promise<void> {
    const chats: IncomingChat[] = [];
    for (const { chat, verdict } of queued) if (verdict === 'respond' || (await this.classify(chat))) chats.push(chat);
    if (chats.length === 0) return;
    this.limiter.record(Date.now());
    await this.answer(chats);
  }

  /** The optional model check for broadcasts; a failed call means "not for me". */
  private async classify(chat: IncomingChat): Promise<boolean> {
    try {
      const reply = await this.complete([
        { role: 'system', content: renderPrompt(CLASSIFY_PROMPT, { me: this.id ?? '' }) },
        { role: 'user', content: `${chat.from}: ${chat.text}` },
      ]);
      return classificationSaysRespond(reply.content, this.settings.classificationThreshold);
    } catch {
      return false;
    }
  }

  private acknowledge(chat: { id: string; to?: readonly string[] }): void {
    const me = this.id;
    if (me === undefined || !chat.to?.includes(me) || !this.canSend('chat/acknowledge', { status: 'received' })) return;
    this.chat.acknowledge(chat.id);
  }

  // ── One turn ─────────────────────────────────────────────────────────────────────────────────────────

  /** One turn; never throws: every outcome ends in a chat to the askers (when possible) and a turn event. */
  private async answer(chats: IncomingChat[]): Promise<void> {
    const ids = chats.map((chat) => chat.id);
    const askers = [...new Set(chats.map((chat) => chat.from))];
    const abort = new AbortController();
    this.currentTurn = abort;
    const traced = startTurn(this.modelScope);
    this.turnTrace = traced;
    const input = chats.map((chat) => `${chat.from}: ${chat.text}`).join('\n');
    const turn: ChatMessageParam[] = [{ role: 'user', content: input }];
    let reasoning: ReasoningHandle | undefined;
    const finish = (outcome: AgentTurn['outcome'], answer: string, error?: Error) => {
      this.currentTurn = undefined;
      this.turnTrace = undefined;
      endTurn(traced, outcome, error);
      this.turnHub.emit('turn', { chats, outcome, answer, ...(reasoning && { reasoningId: reasoning.id }), ...(error && { error }) });
    };
    try {
      for (const chat of chats) this.acknowledge(chat);
      reasoning = this.beginReasoning(ids, askers);
      reasoning?.onCancel(() => abort.abort());
      const { answer, steps } = await this.react(turn, input, reasoning, abort.signal);
      await this.untilActive(abort.signal);
      reasoning?.conclude(`Answered after ${steps} model call(s).`);
      this.chat.send(answer, askers, { correlationId: ids });
      this.context.add(...turn, { role: 'assistant', content: answer });
      finish('answered', answer);
    } catch (error) {
      const cancellation = reasoning?.cancellation;
      // Read before cancelling my own reasoning below, whose cancel listener aborts the turn too.
      const aborted = abort.signal.aborted;
      const why = aborted
        ? `stopped: ${cancellation ? `cancelled by ${cancellation.by}${cancellation.reason ? ` (${cancellation.reason})` : ''}` : 'disconnected'}`
        : `failed: ${(error as Error).message}`;
      // Paused or disconnected, these sends throw too; the turn event still tells the application.
      quietly(() => reasoning?.cancel('failed'));
      quietly(() => this.chat.send(`I ${why}`, askers, { correlationId: ids }));
      // Only the question and the outcome stay: a half-done tool exchange would be an invalid request later.
      this.context.add(turn[0], { role: 'assistant', content: `(${why})` });
      finish(aborted ? 'cancelled' : 'failed', `I ${why}`, error as Error);
    }
  }

  /** Reasoning out loud when my capabilities allow it, mirrored into a stream when they allow that too. */
  private beginReasoning(ids: string[], askers: string[]): ReasoningHandle | undefined {
    if (!this.canSend('reasoning/start', {})) return undefined;
    const mirrorToStream = this.canSend('stream/request', { direction: 'upload' });
    return this.reasoning.start({ correlatedTo: ids, message: `Answering ${askers.join(', ')}`, mirrorToStream });
  }

  /** Reason, act, observe, until the model answers without a tool call or runs out of iterations. */
  private async react(turn: ChatMessageParam[], input: string, reasoning: ReasoningHandle | undefined, signal: AbortSignal) {
    if (this.discovery.inProgress()) await this.discovery.waitForPending(DISCOVERY_WAIT_MS);
    for (let step = 1; step <= this.settings.maxIterations; step++) {
      const tools = this.spaceTools.tools();
      const reply = await this.callModel(this.systemPrompt(tools), turn, tools, signal, reasoning);
      if (reply.toolCalls.length === 0) return { answer: reply.content.trim() || EMPTY_ANSWER_TEXT, steps: step };
      reasoning?.thought(reply.content.trim() || `Calling ${reply.toolCalls.map((call) => call.name).join(', ')}`);
      turn.push({
        role: 'assistant',
        content: reply.content || null,
        tool_calls: reply.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      });
      // One call at a time: each may wait for a human's approval, and later calls may depend on earlier results.
      for (const call of reply.toolCalls) {
        await this.untilActive(signal);
        turn.push({ role: 'tool', tool_call_id: call.id, content: await abortable(this.spaceTools.call(call, signal, this.turnTrace?.context), signal) });
      }
    }
    const respond = renderPrompt(this.settings.prompts.respond ?? DEFAULT_PROMPTS.respond, { me: this.id ?? '', input });
    const reply = await this.callModel(this.systemPrompt([]), [...turn, { role: 'system', content: respond }], [], signal, reasoning);
    return { answer: reply.content.trim() || EMPTY_ANSWER_TEXT, steps: this.settings.maxIterations + 1 };
  }

  /** One model call; its answer's tokens stream into the reasoning's mirror as they arrive, for watchers. */
  private async callModel(
    system: string,
    turn: ChatMessageParam[],
    tools: ChatCompletionFunctionTool[],
    signal: AbortSignal,
    reasoning?: ReasoningHandle,
  ): Promise<Completion> {
    await this.ensureHeadroom(signal);
    const onContent = reasoning && ((piece: string) => void reasoning.delta(piece));
    const messages = requestMessages(system, this.context.entries(), turn);
    const reply = await this.complete(messages, { tools, signal, ...(onContent && { onContent }) });
    // Paused while the model answered: what comes next (thoughts, tool calls) waits for the resume.
    await this.untilActive(signal);
    const counted = reply.usage && reply.usage.promptTokens + reply.usage.completionTokens;
    this.countTokens(counted);
    this.telemetry.record({
      tokens: counted ?? estimateTokens(JSON.stringify(messages)),
      messages: messages.length - 1,
      latencyMs: reply.latencyMs,
    });
    return reply;
  }

  /** Every model call goes through here, so the session's spend counts them all (summaries and classifications too). */
  private async complete(...call: Parameters<ChatModel['complete']>): Promise<Completion> {
    const reply = await traceModelCall(this.modelScope, this.turnTrace?.context, () => this.chatModel.complete(...call));
    if (reply.usage) {
      this.totalTokens += reply.usage.promptTokens + reply.usage.completionTokens;
      this.telemetry.record({ totalTokens: this.totalTokens });
    }
    return reply;
  }

  /** What my spans say of me and my model (agent-tracing.ts). */
  private get modelScope(): ModelScope {
    return { ...this.traceScope, model: this.settings.model, ...(this.settings.baseUrl !== undefined && { baseUrl: this.settings.baseUrl }) };
  }

  /** Waits out a pause or shutdown (the gateway would refuse what I send meanwhile); throws once the turn ends first. */
  private async untilActive(signal: AbortSignal): Promise<void> {
    if (!(await this.waitUntilActive(signal))) throw signal.aborted ? signal.reason : new Error('the agent stopped');
  }

  private systemPrompt(tools: ChatCompletionFunctionTool[]): string {
    const { prompts, systemPrompt } = this.settings;
    const values = { me: this.id ?? '', tools: tools.map((tool) => tool.function.name).join(', ') };
    const parts = [prompts.system ?? systemPrompt ?? DEFAULT_PROMPTS.system, prompts.reason ?? DEFAULT_PROMPTS.reason];
    if (tools.length > 0) parts.push(prompts.act ?? DEFAULT_PROMPTS.act);
    return parts.map((part) => renderPrompt(part, values)).join('\n\n');
  }

  // ── Context ──────────────────────────────────────────────────────────────────────────────────────────

  /** The summary that compaction folds finished turns into: one model call. */
  private async summarise(transcript: string, signal?: AbortSignal): Promise<string> {
    const reply = await this.complete(
      [
        { role: 'system', content: SUMMARY_PROMPT },
        { role: 'user', content: transcript },
      ],
      { signal },
    );
    const summary = reply.content.trim();
    if (!summary) throw new Error('the model returned an empty summary');
    return summary;
  }
}

function quietly(send: () => unknown): void {
  try {
    send();
  } catch {
    // Reported through the turn event instead.
  }
}

/** Rejects with the signal's reason once it aborts; the abandoned promise's outcome is dropped. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
