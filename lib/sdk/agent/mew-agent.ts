import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { AnyEnvelope, ParticipantCompactDonePayload, ParticipantForgetPayload } from '../../protocol';
import type { ContextUsage } from '../context-telemetry';
import { EventHub, type Unsubscribe } from '../event-hub';
import { MEWParticipant, type ControlHooks } from '../mew-participant';
import type { ReasoningHandle } from '../reasoning-session';
import { AgentConversation, type ChatMessageParam } from './agent-conversation';
import {
  assertAgentConfigured,
  COMPACTION_TRIGGER_RATIO,
  DISCOVERY_WAIT_MS,
  EMPTY_ANSWER_TEXT,
  REPLY_RATE_WINDOW_MS,
  resolveAgentSettings,
  type AgentSettings,
  type MEWAgentOptions,
} from './agent-options';
import { CLASSIFY_PROMPT, DEFAULT_PROMPTS, renderPrompt, SUMMARY_PROMPT } from './agent-prompts';
import { ChatModel, type Completion } from './chat-model';
import { chatVerdict, classificationSaysRespond, ReplyRateLimiter, type ChatVerdict, type IncomingChat } from './chat-response-strategy';
import { RejectionExplanations } from './rejection-explanations';
import { SpaceToolBridge } from './space-tool-bridge';

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
 * wait for the next. A `reasoning/cancel` aborts the model request in flight. Context is reported from the API's
 * usage and compacted automatically near the window; `participant/forget`, `compact` and `clear` change what the
 * model is sent next.
 *
 * @example
 * MEWAgent.assertConfigured({ apiKey: process.env.OPENAI_API_KEY });
 * const agent = new MEWAgent({ gateway, space: 'demo', token, model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
 * agent.onTurn((turn) => console.log(turn.outcome, turn.answer));
 * await agent.connect();
 */
export class MEWAgent extends MEWParticipant {
  /** Throws `AgentConfigurationError` when neither an API key nor an endpoint is given (see `assertAgentConfigured`). */
  static assertConfigured(options: { baseUrl?: string; apiKey?: string }): void {
    assertAgentConfigured(options);
  }

  readonly settings: AgentSettings;
  private readonly chatModel: ChatModel;
  private readonly conversation = new AgentConversation();
  private readonly explanations = new RejectionExplanations();
  private readonly spaceTools: SpaceToolBridge;
  private readonly limiter: ReplyRateLimiter;
  private readonly turnHub = new EventHub<{ turn: AgentTurn }>();
  private queue: QueuedChat[] = [];
  private busy = false;
  private wakeTimer?: ReturnType<typeof setTimeout>;
  private currentTurn?: AbortController;
  /** Prompt tokens of the latest model call: what automatic compaction watches. */
  private lastPromptTokens?: number;
  /** Tokens every model call of this session consumed, as the API counted them: what a budget counts. */
  private totalTokens = 0;

  constructor(options: MEWAgentOptions) {
    const settings = resolveAgentSettings(options);
    // The hooks need `this`, which super() must create first; they only run once connected, when it is set.
    let self: MEWAgent | undefined;
    super({
      // The ReAct loop calls others' tools: it needs them discovered (participants opt in, spec "Auto-discovery").
      autoDiscovery: true,
      ...options,
      telemetry: { maxTokens: settings.contextWindow, ...options.telemetry },
      hooks: MEWAgent.agentHooks(options.hooks, () => self!),
    });
    self = this;
    this.settings = settings;
    this.chatModel = new ChatModel(settings);
    this.spaceTools = new SpaceToolBridge(this, this.explanations);
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

  /** Starts the next turn with everything queued, unless one is running, I am paused, or the rate limit says wait. */
  private pump(): void {
    if (this.busy || this.queue.length === 0 || this.controls.pause) return;
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
    const input = chats.map((chat) => `${chat.from}: ${chat.text}`).join('\n');
    const turn: ChatMessageParam[] = [{ role: 'user', content: input }];
    let reasoning: ReasoningHandle | undefined;
    const finish = (outcome: AgentTurn['outcome'], answer: string, error?: Error) => {
      this.currentTurn = undefined;
      this.telemetry.record({ messages: this.conversation.size });
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
      this.conversation.commit([...turn, { role: 'assistant', content: answer }]);
      finish('answered', answer);
    } catch (error) {
      const cancellation = reasoning?.cancellation;
      const why = abort.signal.aborted
        ? `stopped: ${cancellation ? `cancelled by ${cancellation.by}${cancellation.reason ? ` (${cancellation.reason})` : ''}` : 'disconnected'}`
        : `failed: ${(error as Error).message}`;
      // Paused or disconnected, these sends throw too; the turn event still tells the application.
      quietly(() => reasoning?.cancel('failed'));
      quietly(() => this.chat.send(`I ${why}`, askers, { correlationId: ids }));
      // Only the question and the outcome stay: a half-done tool exchange would be an invalid request later.
      this.conversation.commit([turn[0], { role: 'assistant', content: `(${why})` }]);
      finish(abort.signal.aborted ? 'cancelled' : 'failed', `I ${why}`, error as Error);
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
        turn.push({ role: 'tool', tool_call_id: call.id, content: await abortable(this.spaceTools.call(call, signal), signal) });
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
    const reply = await this.complete(this.conversation.build(system, turn), { tools, signal, ...(onContent && { onContent }) });
    // Paused while the model answered: what comes next (thoughts, tool calls) waits for the resume.
    await this.untilActive(signal);
    if (reply.usage) this.lastPromptTokens = reply.usage.promptTokens;
    this.telemetry.record({
      tokens: reply.usage ? reply.usage.promptTokens + reply.usage.completionTokens : this.conversation.estimateTokens(system, turn),
      messages: this.conversation.size + turn.length,
      maxTokens: this.settings.contextWindow,
      latencyMs: reply.latencyMs,
    });
    return reply;
  }

  /** Every model call goes through here, so the session's spend counts them all (summaries and classifications too). */
  private async complete(...call: Parameters<ChatModel['complete']>): Promise<Completion> {
    const reply = await this.chatModel.complete(...call);
    if (reply.usage) {
      this.totalTokens += reply.usage.promptTokens + reply.usage.completionTokens;
      this.telemetry.record({ totalTokens: this.totalTokens });
    }
    return reply;
  }

  /** Resolves at once unless I am paused; then once resumed (the gateway would refuse what I send meanwhile), or rejects on `signal`. */
  private untilActive(signal: AbortSignal): Promise<void> {
    if (!this.controls.pause) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        off();
        signal.removeEventListener('abort', aborted);
      };
      const off = this.on('pause', (pause) => {
        if (pause !== undefined) return;
        done();
        resolve();
      });
      const aborted = () => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  private systemPrompt(tools: ChatCompletionFunctionTool[]): string {
    const { prompts, systemPrompt } = this.settings;
    const values = { me: this.id ?? '', tools: tools.map((tool) => tool.function.name).join(', ') };
    const parts = [prompts.system ?? systemPrompt ?? DEFAULT_PROMPTS.system, prompts.reason ?? DEFAULT_PROMPTS.reason];
    if (tools.length > 0) parts.push(prompts.act ?? DEFAULT_PROMPTS.act);
    return parts.map((part) => renderPrompt(part, values)).join('\n\n');
  }

  // ── Context ──────────────────────────────────────────────────────────────────────────────────────────

  /** Compacts finished turns once the last prompt filled COMPACTION_TRIGGER_RATIO of the window. */
  private async ensureHeadroom(signal: AbortSignal): Promise<void> {
    if (this.lastPromptTokens === undefined || this.lastPromptTokens <= COMPACTION_TRIGGER_RATIO * this.settings.contextWindow) return;
    if (this.conversation.isEmpty) return;
    try {
      if ((await this.compact(signal)) !== undefined) this.reportStatus('compacted');
    } catch (error) {
      if (signal.aborted) throw error;
      // A failed summary loses nothing: the call goes out uncompacted, into the headroom the threshold left.
    }
  }

  /** Summarises the finished turns into one message; the freed message count, or undefined if nothing changed. */
  private async compact(signal?: AbortSignal): Promise<number | undefined> {
    const freed = await this.conversation.compact(async (transcript) => {
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
    });
    if (freed !== undefined) this.contextChanged();
    return freed;
  }

  /** History changed without a model call: the next prompt's size is unknown, so report an estimate until then. */
  private contextChanged(): ContextUsage {
    this.lastPromptTokens = undefined;
    const usage = { tokens: this.conversation.estimateTokens(this.systemPrompt([])), messages: this.conversation.size };
    this.telemetry.record(usage);
    return usage;
  }

  /** The agent's reactions to forget, compact, clear and restart, each followed by the caller's own hook, if any. */
  private static agentHooks(hooks: ControlHooks = {}, agent: () => MEWAgent): ControlHooks {
    return {
      ...hooks,
      onForget: async (payload, envelope) => {
        const usage = agent().forgetContext(payload);
        await hooks.onForget?.(payload, envelope);
        return usage;
      },
      onCompact: async (payload, envelope) => {
        const done = await agent().compactContext();
        await hooks.onCompact?.(payload, envelope);
        return done;
      },
      onClear: async (envelope) => {
        const usage = agent().clearContext();
        await hooks.onClear?.(envelope);
        return usage;
      },
      onRestart: async (envelope) => {
        agent().clearContext();
        await hooks.onRestart?.(envelope);
      },
    };
  }

  private forgetContext(payload: ParticipantForgetPayload): ContextUsage {
    this.conversation.forget(payload.direction, payload.entries);
    return this.contextChanged();
  }

  /** Never throws: a `participant/compact-done` must follow every compact. */
  private async compactContext(): Promise<ParticipantCompactDonePayload> {
    const before = this.conversation.estimateTokens(this.systemPrompt([]));
    let freed: number | undefined;
    try {
      freed = await this.compact();
    } catch (error) {
      return { skipped: true, reason: `compaction failed: ${(error as Error).message}` };
    }
    if (freed === undefined) return { skipped: true, reason: this.conversation.isEmpty ? 'nothing to compact' : 'context changed meanwhile' };
    return { status: 'compacted', freed_messages: freed, freed_tokens: Math.max(0, before - this.conversation.estimateTokens(this.systemPrompt([]))) };
  }

  /** `participant/clear`, and `participant/restart` (the SDK has cancelled the turn's reasoning by then). */
  private clearContext(): ContextUsage {
    this.conversation.clear();
    this.lastPromptTokens = undefined;
    return { tokens: 0, messages: 0 };
  }

  private reportStatus(status: string): void {
    const payload = this.telemetry.statusPayload(status);
    if (this.canSend('participant/status', payload)) this.telemetry.report({ status });
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
