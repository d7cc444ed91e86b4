import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { BoundedMap } from '../collections/bounded-map';
import { escalationOf, ruleRefOfParams, ruleRefOfReject, type Envelope, type RuleRef } from '../protocol';
import { maskValue } from '../secrets/secret-masking';
import {
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  MCP_METHOD_NAME,
  MCP_SESSION_ID,
  MEW_DECIDED_BY,
  MEW_DECIDER_KIND,
  MEW_DECISION,
  MEW_ENVELOPE_ID,
  MEW_INCOMPLETE,
  MEW_KIND,
  MEW_MESSAGE,
  MEW_PARTICIPANT,
  MEW_PROPOSAL_ID,
  MEW_REASON,
  MEW_RESPONDER,
  MEW_RULE_ID,
  MEW_RULE_NAME,
  MEW_RULE_VERSION,
  MEW_SPACE,
  MEW_TARGET,
  MEW_USAGE_CONTEXT_TOKENS,
  MEW_USAGE_COST_USD,
  MEW_USAGE_TOTAL_TOKENS,
  type DeciderKind,
  type Decision,
} from './telemetry-attributes';
import { carriedTraceContext } from './trace-context';

/** Proposals and requests followed at once; beyond, the oldest is ended as incomplete and forgotten. */
const CHAINS_KEPT = 10_000;
/** Envelope ids whose span is remembered, for what correlates to them (parents and links); proposals are kept apart. */
const CONTEXTS_KEPT = 10_000;
/** Reasoning sequences open at once. */
const REASONING_KEPT = 1_000;
/** Captured content longer than this is cut (attribute values are strings). */
const CONTENT_LIMIT = 8_192;
/** A proposer's deadline further than this is not timed (a timer per proposal would be kept for nothing). */
const LONGEST_DEADLINE_MS = 7 * 24 * 3600_000;

/** What a span needs to know of the decisions it reports, for the metrics. */
export interface DecisionSink {
  decided(decision: Decision, decider: DeciderKind, seconds: number): void;
}

/** Tokens a participant reported in its latest `participant/status`. */
export interface ReportedUsage {
  total?: number;
  context?: number;
  input?: number;
  output?: number;
}

export interface ChainTracerOptions {
  space: string;
  tracer: Tracer;
  decisions: DecisionSink;
  /** Record arguments, results, chat text and thoughts, masked by lib/secrets. */
  captureContent: boolean;
  /** The space's rule supervisor: only its decisions may name a rule (as the gateway's audit trail reads them). */
  supervisor(): string | undefined;
  /** Epoch ms (with a fraction): every span's start and end, and the time to decide. @default the performance clock */
  now?(): number;
  /**
   * An envelope the space still retains, by id: where a chat that started work is found when the work links to it
   * (a chat costs nothing until then). @default none: work links only to chats already in a trace
   */
  retained?(id: string): Envelope | undefined;
}

/** A proposal followed from its arrival to its end: decided, and when approved, executed. */
interface ProposalChain {
  id: string;
  proposer: string;
  tool?: string;
  /** When it arrived (epoch ms), for the time to decide. */
  at: number;
  root: Span;
  /** Open while nobody decided: from the proposal to its decision. */
  decide: Span;
  decision?: Decision;
  timer?: ReturnType<typeof setTimeout>;
  /** The root ended (decided other than approved, or the approved call answered). */
  ended: boolean;
}

/** An `mcp/request` waiting for its response: a fulfilment (with its chain) or a request of its own. */
interface OpenRequest {
  span: Span;
  chain: ProposalChain | undefined;
}

interface OpenReasoning {
  span: Span;
  participant: string;
}

/** The span an envelope belongs to, and whether it is a chat's (work a chat starts links to it, not under it). */
interface Followed {
  span: SpanContext;
  chat: boolean;
}

/**
 * Where a new span goes: `root` a trace of its own (a proposal, a request: chains start traces); `work` under the
 * request or proposal it answers (reasoning), linked to the chat that asked; `reply` under whatever it answers (a chat).
 */
type Placement = 'root' | 'work' | 'reply';

type Payload = Record<string, unknown>;

const isRecord = (value: unknown): value is Payload => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * Turns one space's routed envelopes into traces: an `mcp/proposal` or `mcp/request` starts a trace (continuing a
 * `traceparent` its sender carried); the decision on a proposal (whoever or whatever made it), its fulfilment's
 * execution and the tool's response are spans of that trace, found by `correlation_id`; an agent's
 * `reasoning/start` … `reasoning/conclusion` is a span with its thoughts as events; a chat that starts work is a short
 * span that work links to. Bounded: what waits too long among too many is ended as incomplete and forgotten.
 */
export class ChainTracer {
  private readonly chains: BoundedMap<string, ProposalChain>;
  private readonly requests: BoundedMap<string, OpenRequest>;
  private readonly reasoning: BoundedMap<string, OpenReasoning>;
  /** Envelope id → the span it belongs to (a request's, a reasoning's, a chat's; a decision's: its proposal's root). */
  private readonly contexts = new BoundedMap<string, Followed>(CONTEXTS_KEPT);
  /** Each participant's open reasoning, newest: where its status reports are events. */
  private readonly reasoningOf = new Map<string, string>();
  /** Each participant's latest token report (the tokens gauge). */
  readonly usage = new Map<string, ReportedUsage>();
  private pendingCount = 0;
  private readonly now: () => number;
  private readonly base: Attributes;

  constructor(private readonly options: ChainTracerOptions) {
    const origin = performance.timeOrigin;
    this.now = options.now ?? (() => origin + performance.now());
    this.base = { [MEW_SPACE]: options.space };
    this.chains = new BoundedMap(CHAINS_KEPT, (_id, chain) => this.abandon(chain));
    this.requests = new BoundedMap(CHAINS_KEPT, (_id, request) => this.endIncomplete(request.span));
    this.reasoning = new BoundedMap(REASONING_KEPT, (id, open) => {
      if (this.reasoningOf.get(open.participant) === id) this.reasoningOf.delete(open.participant);
      this.endIncomplete(open.span);
    });
  }

  /** Proposals nobody has decided yet (the pending gauge). */
  get pending(): number {
    return this.pendingCount;
  }

  /** One routed envelope, in order. */
  observe(envelope: Envelope): void {
    switch (envelope.kind) {
      case 'mcp/proposal':
        return this.proposal(envelope);
      case 'mcp/request':
        return this.request(envelope);
      case 'mcp/response':
        return this.response(envelope);
      case 'mcp/reject':
        return this.reject(envelope);
      case 'mcp/withdraw':
        return this.withdraw(envelope);
      case 'reasoning/start':
        return this.reasoningStart(envelope);
      case 'reasoning/thought':
      case 'reasoning/conclusion':
      case 'reasoning/cancel':
        return this.reasoningStep(envelope);
      case 'chat':
        return this.chat(envelope);
      case 'participant/status':
        return this.status(envelope);
      default:
        return;
    }
  }

  /**
   * Starts from what the space retained before it was observed (a restart): proposals still pending get their chain,
   * started when they were proposed, so their decision is traced and counted; what was settled is left alone.
   */
  resume(retained: readonly Envelope[]): void {
    const pending = new Map<string, Envelope>();
    for (const envelope of retained) {
      if (envelope.kind === 'mcp/proposal') pending.set(envelope.id, envelope);
      else if (envelope.kind === 'mcp/request' || envelope.kind === 'mcp/reject') for (const id of envelope.correlation_id ?? []) pending.delete(id);
      else if (envelope.kind === 'mcp/withdraw') {
        for (const id of envelope.correlation_id ?? []) if (pending.get(id)?.from === envelope.from) pending.delete(id);
      }
    }
    for (const envelope of pending.values()) {
      const proposed = Date.parse(envelope.ts);
      this.proposal(envelope as Envelope<'mcp/proposal'>, Number.isFinite(proposed) ? Math.min(proposed, this.now()) : undefined);
    }
  }

  /** Ends every open span as incomplete (the space is let go or the server stops). */
  close(): void {
    for (const chain of this.chains.values()) this.abandon(chain);
    this.chains.clear();
    for (const request of this.requests.values()) this.endIncomplete(request.span);
    this.requests.clear();
    for (const open of this.reasoning.values()) this.endIncomplete(open.span);
    this.reasoning.clear();
    this.reasoningOf.clear();
  }

  private proposal(envelope: Envelope<'mcp/proposal'>, since?: number): void {
    if (this.chains.has(envelope.id)) return; // a proposal is never replaced
    const payload = envelope.payload as Payload;
    const method = str(payload.method) ?? 'unknown';
    const tool = toolName(payload);
    // The proposal and its wait start together: when it arrived (or, resumed, when it was proposed).
    const at = since ?? this.now();
    const attributes = this.callAttributes(envelope, method, tool);
    attributes[MEW_PROPOSAL_ID] = envelope.id;
    const parent = this.parentOf(envelope, 'root');
    const root = this.options.tracer.startSpan(
      `propose ${tool ?? method}`,
      { kind: SpanKind.INTERNAL, attributes, links: this.linksOf(envelope, parent), startTime: at },
      parent,
    );
    const rootContext = trace.setSpan(ROOT_CONTEXT, root);
    const decide = this.options.tracer.startSpan(
      `decide ${tool ?? method}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { ...this.base, [MEW_PROPOSAL_ID]: envelope.id, ...(tool !== undefined && { [GEN_AI_TOOL_NAME]: tool }) },
        startTime: at,
      },
      rootContext,
    );
    const chain: ProposalChain = { id: envelope.id, proposer: envelope.from, ...(tool !== undefined && { tool }), at, root, decide, ended: false };
    this.chains.set(envelope.id, chain);
    this.pendingCount++;
    const deadline = proposerDeadline(payload, at);
    if (deadline !== undefined && deadline - this.now() < LONGEST_DEADLINE_MS) {
      chain.timer = setTimeout(() => this.decide(chain, 'expired', 'timeout'), Math.max(0, deadline - this.now()));
      chain.timer.unref?.();
    }
  }

  private request(envelope: Envelope<'mcp/request'>): void {
    const payload = envelope.payload as Payload;
    const method = str(payload.method) ?? 'unknown';
    const tool = toolName(payload);
    const chain = this.chainOf(envelope.correlation_id);
    if (!chain && payload.id === undefined) return this.notification(envelope, method);
    const attributes = this.callAttributes(envelope, method, tool);
    if (method === 'tools/call') {
      attributes[GEN_AI_OPERATION_NAME] = EXECUTE_TOOL;
      attributes[GEN_AI_TOOL_CALL_ID] = envelope.id;
    }
    if (chain) {
      attributes[MEW_PROPOSAL_ID] = chain.id;
      // A fulfilment decides its proposal; only the space's supervisor may name the rule that decided.
      const rule = envelope.from === this.options.supervisor() ? ruleRefOfParams(payload.params) : undefined;
      this.decide(chain, 'approved', rule ? 'rule' : 'participant', envelope.from, rule);
    }
    const name = method === 'tools/call' ? `${EXECUTE_TOOL} ${tool ?? 'unknown'}` : method;
    const parent = chain ? trace.setSpan(ROOT_CONTEXT, chain.root) : this.parentOf(envelope, 'root');
    const span = this.options.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, links: this.linksOf(envelope, parent), startTime: this.now() },
      parent,
    );
    this.requests.set(envelope.id, { span, chain });
    this.follow(envelope.id, span);
  }

  /**
   * A JSON-RPC notification (no `id`: nothing answers it) is no span of its own: an event of the request it is about
   * (progress, cancellation), when one is open.
   */
  private notification(envelope: Envelope<'mcp/request'>, method: string): void {
    for (const id of envelope.correlation_id ?? []) {
      const request = this.requests.get(id);
      if (request) return void request.span.addEvent(method, { [MEW_PARTICIPANT]: envelope.from, [MEW_ENVELOPE_ID]: envelope.id }, this.now());
    }
  }

  /** What a proposal's and a request's spans say of the call (built in place: this runs for every request). */
  private callAttributes(envelope: Envelope<'mcp/proposal' | 'mcp/request'>, method: string, tool: string | undefined): Attributes {
    const attributes: Attributes = {
      [MEW_SPACE]: this.options.space,
      [MCP_SESSION_ID]: this.options.space,
      [MEW_KIND]: envelope.kind,
      [MEW_PARTICIPANT]: envelope.from,
      [MCP_METHOD_NAME]: method,
    };
    const target = envelope.to?.[0];
    if (target !== undefined) attributes[MEW_TARGET] = target;
    if (tool !== undefined) attributes[GEN_AI_TOOL_NAME] = tool;
    if (this.options.captureContent) {
      const params = (envelope.payload as Payload).params;
      Object.assign(attributes, this.content(GEN_AI_TOOL_CALL_ARGUMENTS, isRecord(params) ? params.arguments : undefined));
    }
    return attributes;
  }

  private response(envelope: Envelope<'mcp/response'>): void {
    for (const id of envelope.correlation_id ?? []) {
      const request = this.requests.get(id);
      if (!request) continue;
      this.requests.delete(id);
      const payload = envelope.payload as Payload;
      const error = isRecord(payload.error) ? payload.error : undefined;
      const toolError = isRecord(payload.result) && payload.result.isError === true;
      request.span.setAttributes({ [MEW_RESPONDER]: envelope.from, ...this.content(GEN_AI_TOOL_CALL_RESULT, error ?? payload.result) });
      if (error || toolError) {
        const type = error ? String(num(error.code) ?? 'error') : 'tool_error';
        request.span.setAttribute(ERROR_TYPE, type);
        request.span.setStatus({ code: SpanStatusCode.ERROR, message: str(error?.message)?.slice(0, 256) ?? 'the tool reported an error' });
      }
      request.span.end(this.now());
      const chain = request.chain;
      if (chain && !chain.ended) {
        chain.ended = true;
        if (error || toolError) chain.root.setStatus({ code: SpanStatusCode.ERROR });
        chain.root.end(this.now());
      }
      return;
    }
  }

  private reject(envelope: Envelope<'mcp/reject'>): void {
    const chain = this.chainOf(envelope.correlation_id);
    if (!chain) return;
    this.follow(envelope.id, chain.root);
    const payload = envelope.payload as Payload;
    const reason = str(payload.reason);
    const fromSupervisor = envelope.from === this.options.supervisor();
    const rule = fromSupervisor ? ruleRefOfReject(payload) : undefined;
    if (chain.decision) {
      if (!chain.ended)
        chain.root.addEvent('mcp/reject', { [MEW_PARTICIPANT]: envelope.from, ...(reason !== undefined && { [MEW_REASON]: reason }) }, this.now());
      return;
    }
    const timedOut = fromSupervisor && !rule && reason === 'timeout';
    this.decide(chain, timedOut ? 'timeout' : 'rejected', timedOut ? 'timeout' : rule ? 'rule' : 'participant', envelope.from, rule, reason);
  }

  private withdraw(envelope: Envelope<'mcp/withdraw'>): void {
    const chain = this.chainOf(envelope.correlation_id);
    if (!chain || chain.proposer !== envelope.from) return;
    this.follow(envelope.id, chain.root);
    const reason = str((envelope.payload as Payload | undefined)?.reason);
    if (chain.decision) {
      if (!chain.ended) chain.root.addEvent('mcp/withdraw', reason === undefined ? {} : { [MEW_REASON]: reason }, this.now());
      return;
    }
    this.decide(chain, 'withdrawn', 'proposer', envelope.from, undefined, reason);
  }

  /** The first decision on a proposal stands: it ends the wait (and, unless approved, the chain), and is counted. */
  private decide(chain: ProposalChain, decision: Decision, decider: DeciderKind, by?: string, rule?: RuleRef, reason?: string): void {
    if (chain.decision) return;
    chain.decision = decision;
    clearTimeout(chain.timer);
    this.pendingCount--;
    const attributes: Attributes = {
      [MEW_DECISION]: decision,
      [MEW_DECIDER_KIND]: decider,
      ...(by !== undefined && { [MEW_DECIDED_BY]: by }),
      ...(rule && { [MEW_RULE_ID]: rule.id, [MEW_RULE_VERSION]: rule.version, [MEW_RULE_NAME]: rule.name }),
      ...(reason !== undefined && { [MEW_REASON]: reason.slice(0, 128) }),
    };
    chain.root.setAttributes(attributes);
    chain.decide.setAttributes({ ...attributes, ...(by !== undefined && { [MEW_PARTICIPANT]: by }) });
    chain.decide.end(this.now());
    this.options.decisions.decided(decision, decider, Math.max(0, this.now() - chain.at) / 1000);
    if (decision === 'approved') return;
    chain.ended = true;
    chain.root.end(this.now());
  }

  private reasoningStart(envelope: Envelope<'reasoning/start'>): void {
    const payload = envelope.payload as Payload | undefined;
    const parent = this.parentOf(envelope, 'work');
    const span = this.messageSpan('reasoning', envelope, payload?.message, parent, { links: this.linksOf(envelope, parent), startTime: this.now() });
    this.reasoning.set(envelope.id, { span, participant: envelope.from });
    this.reasoningOf.set(envelope.from, envelope.id);
    this.follow(envelope.id, span);
  }

  private reasoningStep(envelope: Envelope<'reasoning/thought' | 'reasoning/conclusion' | 'reasoning/cancel'>): void {
    const id = envelope.context;
    const open = id === undefined ? undefined : this.reasoning.get(id);
    if (!open || id === undefined) return;
    const payload = envelope.payload as Payload | undefined;
    if (envelope.kind === 'reasoning/cancel') {
      const reason = str(payload?.reason);
      open.span.setAttributes({ [MEW_INCOMPLETE]: true, ...(reason !== undefined && { [MEW_REASON]: reason.slice(0, 128) }) });
    } else {
      open.span.addEvent(envelope.kind, { [MEW_ENVELOPE_ID]: envelope.id, ...this.content(MEW_MESSAGE, payload?.message) }, this.now());
    }
    if (envelope.kind === 'reasoning/thought') return;
    open.span.end(this.now());
    this.reasoning.delete(id);
    if (this.reasoningOf.get(open.participant) === id) this.reasoningOf.delete(open.participant);
  }

  /** A chat in a followed trace (a reject's explanation, an escalation, a traced reply) is a span at once; others wait. */
  private chat(envelope: Envelope<'chat'>): void {
    const now = this.now();
    const chain = this.chainOf(envelope.correlation_id);
    const escalation = chain && !chain.decision ? escalationOf(envelope.payload) : undefined;
    if (chain && escalation) chain.root.addEvent('escalation', { [MEW_PARTICIPANT]: envelope.from, 'mew.waited_seconds': escalation.waited_seconds }, now);
    // A chat in no trace is remembered nowhere: the space retains it, and work it starts finds it there.
    const parent = this.parentOf(envelope, 'reply');
    if (parent !== ROOT_CONTEXT) this.chatSpan(envelope, now, parent);
  }

  /** A chat's span (it takes no time): made when it arrives, or when work it started links to it. */
  private chatSpan(envelope: Envelope<'chat'>, at: number, parent: Context): Followed {
    const span = this.messageSpan('chat', envelope, (envelope.payload as Payload).text, parent, { startTime: at });
    span.end(at);
    return this.follow(envelope.id, span, true);
  }

  /** A span of an envelope that carries a message (a reasoning's opening, a chat): who sent what, and its text if captured. */
  private messageSpan(name: string, envelope: Envelope, message: unknown, parent: Context, start: { links?: Link[]; startTime: number }): Span {
    const attributes: Attributes = {
      ...this.base,
      [MEW_KIND]: envelope.kind,
      [MEW_PARTICIPANT]: envelope.from,
      [MEW_ENVELOPE_ID]: envelope.id,
      ...this.content(MEW_MESSAGE, message),
    };
    return this.options.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, ...start }, parent);
  }

  /**
   * The followed span `id` belongs to; a chat the space retains gets its span now, at the time it was sent (work it
   * started is linking to it).
   */
  private followedOrChat(id: string): Followed | undefined {
    const found = this.followed(id);
    if (found) return found;
    const chat = this.options.retained?.(id);
    if (chat?.kind !== 'chat') return undefined;
    const sent = Date.parse(chat.ts);
    return this.chatSpan(chat, Number.isFinite(sent) ? Math.min(sent, this.now()) : this.now(), ROOT_CONTEXT);
  }

  private status(envelope: Envelope<'participant/status'>): void {
    const payload = envelope.payload as Payload;
    const usage: ReportedUsage = {
      ...definedAs('total', num(payload.total_tokens)),
      ...definedAs('context', num(payload.tokens)),
      ...definedAs('input', num(payload.input_tokens) ?? num(payload.prompt_tokens)),
      ...definedAs('output', num(payload.output_tokens) ?? num(payload.completion_tokens)),
    };
    this.usage.set(envelope.from, usage);
    const id = this.reasoningOf.get(envelope.from);
    const open = id === undefined ? undefined : this.reasoning.get(id);
    if (!open) return;
    const attributes: Attributes = {
      ...(usage.input !== undefined && { [GEN_AI_USAGE_INPUT_TOKENS]: usage.input }),
      ...(usage.output !== undefined && { [GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output }),
      ...(usage.total !== undefined && { [MEW_USAGE_TOTAL_TOKENS]: usage.total }),
      ...(usage.context !== undefined && { [MEW_USAGE_CONTEXT_TOKENS]: usage.context }),
      ...(num(payload.cost_usd) !== undefined && { [MEW_USAGE_COST_USD]: num(payload.cost_usd) }),
    };
    open.span.addEvent(envelope.kind, attributes, this.now());
    open.span.setAttributes(attributes);
  }

  /** The chain of the first followed proposal among `ids`. */
  private chainOf(ids: readonly string[] | undefined): ProposalChain | undefined {
    for (const id of ids ?? []) {
      const chain = this.chains.get(id);
      if (chain) return chain;
    }
    return undefined;
  }

  /** Remembers the span `id` belongs to, for what correlates to it. */
  private follow(id: string, span: Span, chat = false): Followed {
    const followed = { span: span.spanContext(), chat };
    this.contexts.set(id, followed);
    return followed;
  }

  /** The followed span `id` belongs to: a proposal's root, or what `follow` remembered. */
  private followed(id: string): Followed | undefined {
    const chain = this.chains.get(id);
    return chain ? { span: chain.root.spanContext(), chat: false } : this.contexts.get(id);
  }

  /**
   * Where a span starts: the `traceparent` its sender carried; else, by `placement`, the span of the first envelope
   * it answers (a chat's too for a reply, never for work) or of the reasoning it is in; else a trace of its own.
   */
  private parentOf(envelope: Envelope, placement: Placement): Context {
    const carried = carriedTraceContext(envelope);
    if (carried) {
      return trace.setSpanContext(ROOT_CONTEXT, {
        traceId: carried.traceId,
        spanId: carried.spanId,
        traceFlags: carried.traceFlags,
        isRemote: true,
        ...(carried.traceState !== undefined && { traceState: new TraceState(carried.traceState) }),
      });
    }
    if (placement === 'root') return ROOT_CONTEXT;
    for (const id of envelope.correlation_id ?? []) {
      const found = this.followed(id);
      if (found && (placement === 'reply' || !found.chat)) return trace.setSpanContext(ROOT_CONTEXT, found.span);
    }
    const reasoning = envelope.context === undefined ? undefined : this.reasoning.get(envelope.context);
    return reasoning ? trace.setSpan(ROOT_CONTEXT, reasoning.span) : ROOT_CONTEXT;
  }

  /** Links to what else the envelope answers or is in (the chat that started the work, the reasoning it came from). */
  private linksOf(envelope: Envelope, parent: Context): Link[] | undefined {
    if (envelope.correlation_id === undefined && envelope.context === undefined) return undefined;
    const parentId = trace.getSpanContext(parent)?.spanId;
    const links: Link[] = [];
    for (const id of envelope.correlation_id ?? []) {
      const found = this.followedOrChat(id);
      if (found && found.span.spanId !== parentId) links.push({ context: found.span, attributes: { [MEW_ENVELOPE_ID]: id } });
    }
    const reasoning = envelope.context === undefined ? undefined : this.reasoning.get(envelope.context);
    const inReasoning = reasoning?.span.spanContext();
    if (inReasoning && inReasoning.spanId !== parentId) links.push({ context: inReasoning, attributes: { [MEW_ENVELOPE_ID]: envelope.context! } });
    return links;
  }

  /** `{ [key]: masked JSON }` when content is captured and there is some; else nothing. */
  private content(key: string, value: unknown): Attributes {
    if (!this.options.captureContent || value === undefined) return {};
    const masked = maskValue(value);
    const text = typeof masked === 'string' ? masked : JSON.stringify(masked);
    return { [key]: text.length > CONTENT_LIMIT ? `${text.slice(0, CONTENT_LIMIT)}…` : text };
  }

  private endIncomplete(span: Span): void {
    span.setAttribute(MEW_INCOMPLETE, true);
    span.end(this.now());
  }

  /** A chain forgotten undecided or unanswered: its open spans end as incomplete. */
  private abandon(chain: ProposalChain): void {
    clearTimeout(chain.timer);
    if (!chain.decision) {
      this.pendingCount--;
      this.endIncomplete(chain.decide);
    }
    if (!chain.ended) {
      chain.ended = true;
      this.endIncomplete(chain.root);
    }
  }
}

function definedAs<K extends keyof ReportedUsage>(key: K, value: number | undefined): Pick<ReportedUsage, K> | undefined {
  return value === undefined ? undefined : ({ [key]: value } as Pick<ReportedUsage, K>);
}

/** `params.name` of a `tools/call`. */
function toolName(payload: Payload): string | undefined {
  return payload.method === 'tools/call' && isRecord(payload.params) ? str(payload.params.name) : undefined;
}

/**
 * The proposer's own deadline (epoch ms), as the SDK's model reads it: `timeout_ms` or `expires_at` (RFC 3339 or
 * epoch ms) of the payload, else of `params._meta`.
 */
function proposerDeadline(payload: Payload, at: number): number | undefined {
  const meta = isRecord(payload.params) && isRecord(payload.params._meta) ? payload.params._meta : undefined;
  for (const source of [payload, meta]) {
    if (!source) continue;
    const timeoutMs = num(source.timeout_ms);
    if (timeoutMs !== undefined && timeoutMs > 0) return at + timeoutMs;
    const expiresAt = source.expires_at;
    const deadline = typeof expiresAt === 'number' ? expiresAt : typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.NaN;
    if (Number.isFinite(deadline)) return deadline;
  }
  return undefined;
}
