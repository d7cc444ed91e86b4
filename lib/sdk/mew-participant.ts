import type { Context } from '@opentelemetry/api';
import type { CapabilityPattern, CompiledCapabilities } from '../capabilities';
import {
  GATEWAY_ID,
  isMcpNotification,
  isParticipantControlKind,
  withoutRuleRef,
  type AnyEnvelope,
  type Envelope,
  type InboundEnvelope,
  type McpRequestPayload,
  type McpResponsePayload,
  type ParticipantCompactDonePayload,
  type ParticipantCompactPayload,
  type ParticipantForgetPayload,
  type Kind,
} from '../protocol';
import type { ChatMessage } from './model/chat-slice';
import { ContextTelemetry, type ContextUsage, type TelemetryOptions } from './context-telemetry';
import { EventHub, type Unsubscribe } from './event-hub';
import { AnsweredRequests } from './answered-requests';
import { LocalMcpServer, type McpAnswer, type McpFallbackHandler, type McpRequestHandler } from './local-mcp-server';
import { outstandingMcpRequests, trackedMode, trackMcpRequest } from './mcp-request-tracker';
import { observed } from './observed';
import { createOperate, OPERATOR_ENVELOPES } from './operate';
import { MEWClient, type MEWClientOptions, type OutgoingEnvelope, type SentEnvelope, type StatusChange } from './mew-client';
import { OwnPause, type PauseInfo } from './own-pause';
import { ParticipantModel, type Peer } from './participant-model';
import { hasApproved, type Proposal } from './model/proposals-slice';
import type { SpaceStoreOptions } from './model/store-defaults';
import { ReasoningSession, type ReasoningHandle } from './reasoning-session';
import { compileCapabilitiesSafely } from './safe-capabilities';
import { DEFAULT_REQUEST_TIMEOUT_MS, DISCOVERY_STAGGER_MS, STREAM_OPEN_TIMEOUT_MS } from './sdk-defaults';
import type { McpCall } from './mcp-call';
import type {
  Decision,
  FulfilOptions,
  MewStream,
  ParticipantChat,
  ParticipantControls,
  ParticipantDiscovery,
  ParticipantOperate,
  ParticipantProposals,
  ParticipantReasoning,
  ParticipantStreams,
  ParticipantTelemetry,
  ParticipantTools,
  ReasoningOptions,
  RejectOptions,
} from './participant-namespaces';
import { randomUuid } from './random-uuid';
import { CapabilityDeniedError, MewSdkError, RequestCancelledError } from './sdk-errors';
import { endMcpCall, followMcpCall, loadOtel, otelPending, startMcpCall, traceServe, type TraceScope } from './sdk-tracing';
import type { AwaitOptions } from './sent-envelopes';
import type { StreamInfo } from './model/streams-slice';
import { ToolDiscovery, type DiscoveryOptions, type DiscoveryStatus } from './tool-discovery';

/**
 * Overridable reactions to participant controls (spec §3.9). Each may be async. The SDK answers every control with
 * an envelope correlated to it: after forget, compact (`compacting` status, then `participant/compact-done` and a
 * `compacted` status) and clear, the hook's result; restart (a `restarting` status) and shutdown (`chat/acknowledge`,
 * else a `shutting_down` status) before the hook, which may well end the process. Returning a `ContextUsage`
 * updates the telemetry that report carries.
 */
export interface ControlHooks {
  /** Drop cached context from one end. */
  onForget?(payload: ParticipantForgetPayload, envelope: Envelope<'participant/forget'>): ContextUsage | void | Promise<ContextUsage | void>;
  /** Compact working memory; the result becomes the `participant/compact-done` payload. Default: skipped. */
  onCompact?(
    payload: ParticipantCompactPayload,
    envelope: Envelope<'participant/compact'>,
  ): ParticipantCompactDonePayload | void | Promise<ParticipantCompactDonePayload | void>;
  /** Wipe all context. Without a returned usage the SDK reports an empty context. */
  onClear?(envelope: Envelope<'participant/clear'>): ContextUsage | void | Promise<ContextUsage | void>;
  /**
   * Back to baseline; the SDK has already cancelled my reasoning, closed my streams, withdrawn my pending proposals
   * and ended my pending requests (`RequestCancelledError`), and said `restarting`.
   */
  onRestart?(envelope: Envelope<'participant/restart'>): void | Promise<void>;
  /** Last words before the SDK disconnects (the gateway then announces that I left); the shutdown is already acknowledged. */
  onShutdown?(envelope: Envelope<'participant/shutdown'>): void | Promise<void>;
}

export interface MEWParticipantOptions extends MEWClientOptions {
  /** Default `mcpRequest` timeout. @default DEFAULT_REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
  /** Discover the tools of participants that can answer, on welcome and when they join (spec: opt-in). @default false */
  autoDiscovery?: boolean;
  discovery?: DiscoveryOptions & {
    /** Gap between the auto-discoveries of the participants listed in one welcome. @default DISCOVERY_STAGGER_MS */
    staggerMs?: number;
  };
  telemetry?: TelemetryOptions;
  hooks?: ControlHooks;
  /** Answers MCP methods addressed to me that my tools and resources do not cover (e.g. `initialize`). */
  onRequest?: McpFallbackHandler;
  /** Requests addressed to me whose responses are kept, so that one delivered again is not run again. @default ANSWERED_REQUESTS */
  answeredRequests?: number;
  /**
   * Options of my space model (lib/sdk/model/store-defaults.ts), the same defaults as the control room's (proposal
   * expiry and all). `screen: true` also derives what only a screen shows; the control room passes it and views this
   * participant's `spaceModel` in its store. @default { screen: false }
   */
  spaceModel?: SpaceStoreOptions;
}

/** More of `mcpRequest`. */
export interface McpRequestOptions {
  /** Giving up: a proposal is withdrawn, so nobody approves what its proposer no longer wants. */
  signal?: AbortSignal;
  /** Called with the `mcp/request` or `mcp/proposal` as sent (its id is what `withdraw` takes). */
  onSent?: (envelope: SentEnvelope) => void;
  /**
   * The OpenTelemetry context the call's span starts under (lib/sdk/sdk-tracing.ts), for callers that pass contexts
   * explicitly rather than through a registered context manager. @default the active context
   */
  traceContext?: Context;
}

/** Participant-level events. Raw envelopes and connection status are on `participant.client`. */
export type ParticipantEvents = {
  'participant-join': Peer;
  'participant-leave': { id: string };
  /** My capabilities changed (a welcome). */
  capabilities: readonly CapabilityPattern[];
  /** Someone else's proposal appeared or moved along (fulfilled, completed, rejected, withdrawn, expired…). */
  proposal: Proposal;
  /** The chats awaiting my acknowledgement changed. */
  'chat-queue': ChatMessage[];
  /** I was paused (the pause) or resumed (undefined). */
  pause: PauseInfo | undefined;
  discovery: { participantId: string; status: DiscoveryStatus };
  /** The list of open streams changed. */
  streams: StreamInfo[];
  /** A control addressed to me that I ignored, and why. */
  'control-ignored': { envelope: AnyEnvelope; reason: string };
  /** Failures in background work (serving a request, a hook, an automatic report). */
  error: Error;
};

const TOOLS_LIST: McpCall = { method: 'tools/list', params: {} };
/** MCP's notification that a server's tools changed. */
const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed';
// Representative payloads for asking "may this participant answer MCP?" and "may I ask for its tools?".
const SAMPLE_MCP_RESPONSE = { jsonrpc: '2.0', id: 0, result: {} };
const SAMPLE_TOOLS_LIST_REQUEST = { jsonrpc: '2.0', id: 0, ...TOOLS_LIST };
/** The longest delay `setTimeout` takes; a later expiry is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Layer 2 of the SDK: a protocol-aware participant. It owns a `MEWClient` (composition rather than inheritance:
 * the connection's API stays one `client` property away instead of mixing with protocol methods, and neither
 * class can break the other through protected hooks) and adds, by concern: the tools it serves (`tools`), others'
 * tools (`discovery`), proposals (`proposals`), chat and its acknowledgement queue (`chat`), context telemetry
 * (`telemetry`), controls addressed to it (`controls`), what it does to others as an operator (`operate`), reasoning
 * sequences (`reasoning`) and streams (`streams`);
 * MCP calls with the proposal fallback (`mcpRequest`) and `sendAndAwait` sit on the participant itself. What it knows
 * of the space is its `spaceModel` (`ParticipantModel`), applied as envelopes arrive: the control room's store is a view
 * of the browser participant's. What became of what it sends is the client's one record per envelope (`client.sent`).
 *
 * @example
 * const calc = new MEWParticipant({ gateway, space: 'demo', token });
 * calc.tools.register({
 *   name: 'add',
 *   inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
 *   execute: ({ a, b }) => Number(a) + Number(b),
 * });
 * await calc.connect();
 * const result = await calc.mcpRequest('other', { method: 'tools/list' });
 */
export class MEWParticipant {
  /** The connection: status, raw envelope events (`client.on('chat', …)`), stream frames. */
  readonly client: MEWClient;
  private readonly hub = new EventHub<ParticipantEvents>((error, event) =>
    event === 'error' ? console.error('[mew-sdk] error listener failed:', error) : this.reportError(error),
  );
  private readonly server: LocalMcpServer;
  private answerMcp: McpRequestHandler = (method, params, context) => this.server.answer(method, params, context);
  /**
   * The space as my envelopes describe it (lib/sdk/model): peers, proposals, streams, chats awaiting me, and with
   * `spaceModel: { screen: true }` all a screen shows. Read it, never write it; the control room's store views it
   * (`createSpaceStore({ model: participant.spaceModel })`).
   */
  readonly spaceModel: ParticipantModel;
  private readonly answered: AnsweredRequests;
  private expiryTimer?: ReturnType<typeof setTimeout>;
  /** When the expiry timer fires (Infinity: not set). */
  private expiryAt = Infinity;
  private readonly ownPause = new OwnPause();
  private readonly reasoningSessions = new Map<string, ReasoningSession>();
  private readonly toolDiscovery: ToolDiscovery;
  private readonly contextTelemetry: ContextTelemetry;
  private compiled: CompiledCapabilities = compileCapabilitiesSafely([]);
  private nextJsonRpcId = 1;

  /** The tools and resources I serve. */
  readonly tools: ParticipantTools = {
    register: (tool) => this.server.registerTool(tool),
    registerResource: (resource) => this.server.registerResource(resource),
    forward: (handler) => {
      this.answerMcp = handler;
    },
    // MEW carries MCP notifications as `mcp/request` without an id (spec §3.1.1); broadcast, since anyone may have listed.
    announceToolsChanged: () => {
      const payload = { jsonrpc: '2.0' as const, method: TOOLS_LIST_CHANGED };
      if (this.client.status === 'ready' && this.canSend('mcp/request', payload)) this.sendQuietly({ kind: 'mcp/request', payload });
    },
  };

  /** Others' tools, discovered with `tools/list`. */
  readonly discovery: ParticipantDiscovery = {
    discover: (participantId) => this.toolDiscovery.discover(participantId, { force: true }),
    available: () => this.toolDiscovery.availableTools(),
    status: () => this.toolDiscovery.allStatuses(),
    inProgress: () => this.toolDiscovery.inProgress(),
    waitForPending: (maxWaitMs) => this.toolDiscovery.waitForPending(maxWaitMs),
  };

  /** Others' proposals and my decisions on them. */
  readonly proposals: ParticipantProposals = {
    fulfil: (proposalId, options = {}) => this.fulfil(proposalId, options),
    reject: (proposalId, reason = 'disagree', explanation, options) => this.reject(proposalId, reason, explanation, options),
    pending: () => this.spaceModel.pendingProposals(),
    get: (proposalId) => this.spaceModel.proposal(proposalId),
    sentDecision: (proposalId) =>
      this.client.sent.awaitingAck((e) => (e.kind === 'mcp/request' || e.kind === 'mcp/reject') && (e.correlation_id?.includes(proposalId) ?? false)),
  };

  /** Chat and the acknowledgement queue. */
  readonly chat: ParticipantChat = {
    send: (text, to, options = {}) =>
      this.send({
        kind: 'chat',
        ...(to !== undefined && { to: toArray(to) }),
        ...(options.correlationId && { correlation_id: options.correlationId }),
        payload: { text, ...(options.format && { format: options.format }) },
      }),
    pending: () => this.spaceModel.pendingChats(),
    acknowledge: (chatId, status = 'received') => this.closeChat(chatId, 'chat/acknowledge', { status }),
    cancel: (chatId, reason) => this.closeChat(chatId, 'chat/cancel', reason === undefined ? {} : { reason }),
  };

  /** My context telemetry, and others' on request. */
  readonly telemetry: ParticipantTelemetry = {
    record: (usage) => {
      if (this.contextTelemetry.record(usage)) this.reportStatusQuietly('near_limit');
    },
    statusPayload: (status) => this.contextTelemetry.buildStatusPayload(status),
    report: (options = {}) => this.send(this.statusEnvelope(options.status, options.correlationId)),
    request: (target, fields) => this.send(OPERATOR_ENVELOPES.requestStatus(target, fields && { fields })),
  };

  /** Controls addressed to me. */
  readonly controls: ParticipantControls = pauseView(this.ownPause);

  /** What I do to others as an operator: grant, revoke, invite, kick, pause, resume, compact, restart, shut down… */
  readonly operate: ParticipantOperate = createOperate({
    send: (envelope) => this.send(envelope),
    awaitReply: (envelopeId, options) => this.awaitReply(envelopeId, options),
    canSend: (kind, payload) => this.canSend(kind, payload),
  });

  /** Reasoning sequences. */
  readonly reasoning: ParticipantReasoning = { start: (options = {}) => this.startReasoning(options) };

  /** Data streams. */
  readonly streams: ParticipantStreams = {
    request: async (payload, options = {}) => {
      const sent = this.send({ kind: 'stream/request', ...(options.correlationId && { correlation_id: options.correlationId }), payload });
      const open = await this.awaitReply(sent.id, { replyKinds: ['stream/open'], timeoutMs: options.timeoutMs ?? STREAM_OPEN_TIMEOUT_MS });
      return this.streamHandle(this.spaceModel.stream(open.payload.stream_id)!);
    },
    active: () => this.spaceModel.activeStreams(),
    onData: (streamId, listener) =>
      this.client.on('stream/data', (frame) => {
        if (frame.streamId === streamId) listener(frame);
      }),
  };

  constructor(private readonly options: MEWParticipantOptions) {
    this.client = new MEWClient(options);
    this.spaceModel = new ParticipantModel({ screen: false, ...options.spaceModel }, (expired) => {
      for (const proposal of expired) this.hub.emit('proposal', proposal);
    });
    this.server = new LocalMcpServer(options.onRequest);
    this.answered = new AnsweredRequests(options.answeredRequests);
    this.contextTelemetry = new ContextTelemetry(options.telemetry);
    this.toolDiscovery = new ToolDiscovery(
      (participantId, timeoutMs) => this.request(participantId, TOOLS_LIST, timeoutMs, false, {}),
      options.discovery,
      (participantId, status) => this.hub.emit('discovery', { participantId, status }),
    );
    this.client.on('welcome', (welcome) => this.handleWelcome(welcome));
    this.client.on('message', (envelope) => this.handleEnvelope(envelope));
    this.client.on('status', (change) => this.handleStatus(change));
    this.client.on('duplicate', (envelope) => this.handleDuplicate(envelope));
    if (this.spaceModel.config.screen) this.client.on('stream/data', (frame) => this.spaceModel.observe(frame, Date.now()));
    // My spans (sdk-tracing.ts): loads @opentelemetry/api only when the process registered a tracer provider.
    void loadOtel();
  }

  // ── Connection ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Connects (see `MEWClient.connect`) and resolves once welcomed.
   *
   * @example
   * await participant.connect();
   */
  connect(): Promise<void> {
    return this.client.connect();
  }

  /**
   * Disconnects for good; pending requests fail with `ConnectionClosedError`, or `UnacknowledgedSendError` when the
   * gateway had not even acknowledged them.
   *
   * @example
   * participant.disconnect();
   */
  disconnect(): void {
    this.client.disconnect();
  }

  /**
   * My participant id (after the welcome).
   *
   * @example
   * participant.id; // 'calc'
   */
  get id(): string | undefined {
    return this.client.participantId;
  }

  /**
   * My capabilities, from the latest welcome.
   *
   * @example
   * participant.capabilities; // [{ kind: 'mcp/response' }, { kind: 'chat' }]
   */
  get capabilities(): readonly CapabilityPattern[] {
    return this.compiled.patterns;
  }

  /**
   * The other participants present, with their effective capabilities.
   *
   * @example
   * participant.participants.map((p) => p.id); // ['alice', 'files']
   */
  get participants(): Peer[] {
    return this.spaceModel.peers();
  }

  /**
   * Subscribes to a participant event (see `ParticipantEvents`).
   *
   * @example
   * const off = participant.on('chat-queue', (chats) => render(chats));
   */
  on<E extends keyof ParticipantEvents>(event: E, listener: (value: ParticipantEvents[E]) => void): Unsubscribe {
    return this.hub.on(event, listener);
  }

  /**
   * Whether my capabilities (from the welcome, compiled with the gateway's own matcher) allow this kind with
   * this payload.
   *
   * @example
   * participant.canSend('mcp/request', { method: 'tools/call', params: { name: 'write_file' } });
   */
  canSend(kind: string, payload?: unknown): boolean {
    return this.compiled.matches({ kind, payload });
  }

  /**
   * Sends an envelope through the client, refusing at once (`ParticipantPausedError`) what a pause forbids.
   *
   * @example
   * participant.send({ kind: 'chat', payload: { text: 'hi' } });
   */
  send(envelope: OutgoingEnvelope): SentEnvelope {
    this.ownPause.assertMaySend(envelope.kind);
    return this.client.send(envelope);
  }

  /**
   * Sends an envelope and waits for what becomes of it: the first reply of `replyKinds` correlated to it (from
   * `from`, when given), or with no reply kinds its echo, which means the gateway accepted and routed it. Rejects
   * with `GatewayRefusalError` when the gateway refuses it, `RequestTimeoutError` after `timeoutMs`,
   * `UnacknowledgedSendError` when the client gave up on it unacknowledged (see the client's `unacknowledged`),
   * `ConnectionClosedError` when the connection ended for good. Throws at once what `send` throws (paused, invalid,
   * queue full). It waits on the envelope's one record in `client.sent`, where `mcpRequest` follows its requests too.
   *
   * @example
   * const { envelope, reply } = participant.sendAndAwait(
   *   { kind: 'space/invite', payload: { participant_id: 'guest' } },
   *   { replyKinds: ['space/invite-ack'], timeoutMs: 10_000 },
   * );
   * const token = (await reply).payload.token;
   */
  sendAndAwait<K extends Kind>(envelope: OutgoingEnvelope, options: AwaitOptions<K>): { envelope: SentEnvelope; reply: Promise<Envelope<K>> } {
    const sent = this.send(envelope);
    return { envelope: sent, reply: this.awaitReply(sent.id, options) };
  }

  /**
   * `sendAndAwait`'s waiting half, for an envelope already sent (e.g. to await its acceptance and a reply apart).
   *
   * @example
   * const accepted = participant.awaitReply(sent.id, { replyKinds: [], timeoutMs: 10_000 });
   * const acked = participant.awaitReply(sent.id, { replyKinds: ['capability/grant-ack'], timeoutMs: 60_000 });
   */
  awaitReply<K extends Kind>(envelopeId: string, options: AwaitOptions<K>): Promise<Envelope<K>> {
    return this.client.sent.wait(envelopeId, options);
  }

  // ── Calling others ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Calls an MCP method on another participant and resolves with the JSON-RPC `result`. Sends `mcp/request`
   * when my capabilities allow it, else an `mcp/proposal` for someone to fulfil, and then follows the chain
   * (fulfilment → its response). Rejects with `McpError` (JSON-RPC error), `ProposalRejectedError` (first
   * `mcp/reject`), `GatewayRefusalError` (the gateway refused it), `UnacknowledgedSendError` (the connection ended
   * for good before the gateway acknowledged it), `RequestTimeoutError` (after sending
   * `mcp/withdraw` for a proposal), `RequestCancelledError` (`signal` fired, `withdraw`, or a restart; a proposal
   * is withdrawn, so nobody approves what its proposer no longer wants) or `CapabilityDeniedError` (neither form allowed).
   *
   * @example
   * const result = await participant.mcpRequest('calc', { method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }, 30_000);
   */
  mcpRequest(target: string | string[], call: McpCall, timeoutMs = this.requestTimeoutMs, options: McpRequestOptions = {}): Promise<unknown> {
    return this.request(target, call, timeoutMs, true, options);
  }

  /**
   * Withdraws my pending proposal because it is no longer needed (`mcp/withdraw` correlated to it, spec §3.3.1);
   * the `mcpRequest` waiting on it rejects with `RequestCancelledError`. Throws `MewSdkError` when the id is not a
   * pending proposal of mine, and what `send` throws.
   *
   * @example
   * const result = participant.mcpRequest('files', call, 60_000, { onSent: (p) => (proposalId = p.id) });
   * participant.withdraw(proposalId, 'no_longer_needed');
   */
  withdraw(proposalId: string, reason = 'no_longer_needed'): SentEnvelope {
    const known = this.spaceModel.proposal(proposalId);
    const mine = trackedMode(this.client.sent, proposalId) === 'proposal' || (known?.proposer === this.id && known?.state === 'pending');
    if (!mine) throw new MewSdkError(`${proposalId} is not a pending proposal of mine`);
    const sent = this.send(withdrawal(proposalId, reason));
    this.client.sent.fail(proposalId, new RequestCancelledError(`proposal ${proposalId}`, `withdrawn (${reason})`));
    return sent;
  }

  // ── Inbound ──────────────────────────────────────────────────────────────────────────────────────────

  private handleWelcome(welcome: Envelope<'system/welcome'>): void {
    // A fresh welcome (e.g. after a grant) replaces my capabilities wholesale: it is authoritative.
    this.compiled = compileCapabilitiesSafely(welcome.payload.you.capabilities);
    this.spaceModel.observe(welcome, Date.now()); // before the 'message' event: discovery below reads the peers
    this.hub.emit('capabilities', this.compiled.patterns);
    this.hub.emit('streams', this.spaceModel.activeStreams());
    const staggerMs = this.options.discovery?.staggerMs ?? DISCOVERY_STAGGER_MS;
    this.spaceModel.peers().forEach((peer, index) => {
      this.autoDiscover(peer.id, index * staggerMs);
    });
  }

  private handleEnvelope(envelope: AnyEnvelope): void {
    const me = this.id;
    if (envelope.kind !== 'system/welcome') {
      const changes = this.spaceModel.observe(envelope, Date.now());
      for (const proposal of changes.proposals) this.hub.emit('proposal', proposal);
      if (changes.chatQueue) this.hub.emit('chat-queue', this.spaceModel.pendingChats());
      if (changes.streams) this.hub.emit('streams', this.spaceModel.activeStreams());
      if (this.spaceModel.nextExpiry < this.expiryAt) this.scheduleExpiry();
    }
    if (envelope.from === me) return;
    const addressedToMe = me !== undefined && (envelope.to?.includes(me) ?? false);

    switch (envelope.kind) {
      case 'chat':
        // Spec: incoming chats count in my context (those to me or to everyone; others' I only overhear).
        if (addressedToMe || !envelope.to?.length) this.contextTelemetry.countMessage();
        return;
      case 'system/presence':
        return this.handlePresence(envelope);
      case 'mcp/request':
        if (addressedToMe) void this.serve(envelope);
        else if (envelope.payload.method === TOOLS_LIST_CHANGED) this.rediscover(envelope.from);
        return;
      case 'capability/grant':
        if (envelope.payload.recipient === me) this.acknowledgeGrant(envelope);
        return;
      case 'reasoning/cancel':
        if (envelope.context) this.reasoningSessions.get(envelope.context)?.cancelledBy(envelope.from, envelope.payload.reason);
        return;
      default:
        if (addressedToMe && isParticipantControlKind(envelope.kind)) void this.handleControl(envelope);
    }
  }

  private handlePresence(envelope: Envelope<'system/presence'>): void {
    const { event, participant } = envelope.payload;
    if (participant.id === this.id) return;
    const peer = this.spaceModel.peer(participant.id);
    if (event === 'join' && peer) {
      this.hub.emit('participant-join', peer);
      this.autoDiscover(participant.id, 0);
    } else if (event === 'leave') {
      this.toolDiscovery.forget(participant.id);
      this.hub.emit('participant-leave', { id: participant.id });
    }
  }

  private handleStatus(change: StatusChange): void {
    this.spaceModel.setConnection(change.status, change.close?.reason, Date.now());
    // Whoever awaits a send of mine already learnt it from the client (`client.sent`).
    if (change.status === 'error' || (change.status === 'disconnected' && !change.willReconnect)) {
      this.toolDiscovery.reset();
      clearTimeout(this.expiryTimer);
      this.expiryAt = Infinity;
    }
  }

  /**
   * Keeps one timer on the model's next expiry, so a proposal expires on time (a `proposal` event says so) in a quiet
   * space too; the control room's clock ticks the same model.
   */
  private scheduleExpiry(): void {
    const at = this.spaceModel.nextExpiry;
    clearTimeout(this.expiryTimer);
    this.expiryAt = at;
    if (at === Infinity) return;
    this.expiryTimer = setTimeout(
      () => {
        this.expiryAt = Infinity;
        this.spaceModel.tick(Date.now());
        this.scheduleExpiry();
      },
      Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS),
    );
    (this.expiryTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Answers an `mcp/request` addressed to me from my own tools and resources, once per envelope id: a request seen
   * before is answered with the response sent then (see `AnsweredRequests`), one still running not at all. Only a
   * notification (`notifications/*`, no `id`) goes unanswered: a request without a JSON-RPC `id` (the reference
   * implementation's `{"method": "tools/list"}`) is answered too, its envelope id its identity.
   */
  private async serve(envelope: Envelope<'mcp/request'>): Promise<void> {
    if (!this.answered.start(envelope.id)) return this.answerAgain(envelope.id);
    const { id, method, params } = envelope.payload;
    let answer: McpAnswer;
    try {
      answer = await traceServe(envelope, this.traceScope, () => this.answerMcp(method, params, { from: envelope.from, envelope }));
    } catch (error) {
      // Handlers should not throw; if one did, it may have done its work: it is not run again either.
      this.answered.finish(envelope.id);
      return this.reportError(error);
    }
    if (isMcpNotification(envelope.payload)) return this.answered.finish(envelope.id); // no response
    // Its id is chosen here, so that answering again sends the very same envelope, which the gateway dedupes.
    const response: SentEnvelope = {
      id: randomUuid(),
      kind: 'mcp/response',
      to: [envelope.from],
      correlation_id: [envelope.id],
      payload: { jsonrpc: '2.0', ...(id !== undefined && { id }), ...answer } as McpResponsePayload,
    };
    this.answered.finish(envelope.id, response);
    this.sendQuietly(response);
  }

  /** Sends the response stored for the request `requestId` again, if it has one (nothing while it is still running). */
  private answerAgain(requestId: string): void {
    const outcome = this.answered.outcome(requestId);
    if (outcome?.state === 'answered' && outcome.response) this.sendQuietly(outcome.response);
  }

  /**
   * A request to me that the client already emitted, delivered again (a requester resending it, a replay): the
   * requester may have missed my response, so it gets the same one again; the tool does not run again.
   */
  private handleDuplicate(envelope: AnyEnvelope): void {
    const me = this.id;
    if (envelope.kind !== 'mcp/request' || me === undefined || envelope.from === me || !envelope.to?.includes(me)) return;
    this.answerAgain(envelope.id);
  }

  /**
   * Acts on a control addressed to me, but only when the sender's capabilities, as the gateway announced them
   * (plus grants I saw), allow it. The gateway already enforced them; checking again here keeps a participant
   * safe behind a gateway that does not. The gateway's own controls (a budget pause) need no capability: no
   * participant can send as it.
   */
  private async handleControl(envelope: AnyEnvelope): Promise<void> {
    if (envelope.from !== GATEWAY_ID && !this.spaceModel.allows(envelope.from, envelope)) {
      const reason = `${envelope.from} is not known to hold a capability for ${envelope.kind}`;
      return this.hub.emit('control-ignored', { envelope, reason });
    }
    const hooks = this.options.hooks ?? {};
    const answering = [envelope.id];
    try {
      switch (envelope.kind) {
        case 'participant/pause': {
          const { reason, timeout_seconds } = envelope.payload;
          this.ownPause.pause({ by: envelope.from, pauseId: envelope.id, ...(reason !== undefined && { reason }) }, timeout_seconds, () =>
            this.resumed(answering),
          );
          this.hub.emit('pause', this.ownPause.current);
          return this.reportStatusQuietly('paused', answering);
        }
        case 'participant/resume':
          if (this.ownPause.resume()) this.resumed(answering);
          return;
        case 'participant/request-status':
          return this.reportStatusQuietly(undefined, answering, envelope.payload.fields);
        case 'participant/forget':
          this.recordIfGiven(await hooks.onForget?.(envelope.payload, envelope));
          return this.reportStatusQuietly('forgotten', answering);
        case 'participant/compact': {
          this.reportStatusQuietly('compacting', answering);
          const done = (await hooks.onCompact?.(envelope.payload, envelope)) ?? { skipped: true, reason: 'nothing to compact' };
          this.sendQuietly({ kind: 'participant/compact-done', to: [envelope.from], correlation_id: answering, payload: done });
          return this.reportStatusQuietly('compacted', answering);
        }
        case 'participant/clear':
          this.contextTelemetry.record((await hooks.onClear?.(envelope)) ?? { tokens: 0, messages: 0 });
          return this.reportStatusQuietly('cleared', answering);
        case 'participant/restart':
          this.endWork();
          this.reportStatusQuietly('restarting', answering);
          return await hooks.onRestart?.(envelope);
        case 'participant/shutdown':
          this.acknowledgeShutdown(envelope);
          await hooks.onShutdown?.(envelope);
          return this.disconnect();
      }
    } catch (error) {
      this.reportError(error);
    }
  }

  /** A restart's baseline (spec §3.9.9): my reasoning, streams, proposals (withdrawn) and requests end. */
  private endWork(): void {
    for (const session of [...this.reasoningSessions.values()]) session.cancel('restart');
    for (const stream of this.spaceModel.activeStreams()) if (stream.owner === this.id) this.closeQuietly(this.streamHandle(stream), 'restart');
    for (const { id, mode } of outstandingMcpRequests(this.client.sent)) {
      if (mode === 'proposal') this.sendQuietly(withdrawal(id, 'restarting'));
      this.client.sent.fail(id, new RequestCancelledError(`${mode === 'proposal' ? 'proposal' : 'mcp/request'} ${id}`, 'restarting'));
    }
  }

  /**
   * Spec §3.9.10: acknowledge a shutdown before going quiet, with `chat/acknowledge` (which the gateway still takes
   * from a shut-down participant), or a status when my capabilities do not allow that.
   */
  private acknowledgeShutdown(shutdown: Envelope<'participant/shutdown'>): void {
    const ack = { status: 'shutting_down' };
    if (this.canSend('chat/acknowledge', ack)) this.sendQuietly({ kind: 'chat/acknowledge', to: [shutdown.from], correlation_id: [shutdown.id], payload: ack });
    else this.reportStatusQuietly(ack.status, [shutdown.id]);
  }

  private resumed(answering: string[]): void {
    this.hub.emit('pause', undefined);
    this.reportStatusQuietly('active', answering);
  }

  private acknowledgeGrant(grant: Envelope<'capability/grant'>): void {
    const payload = { status: 'accepted' };
    if (!this.canSend('capability/grant-ack', payload)) return;
    this.sendQuietly({ kind: 'capability/grant-ack', to: [grant.from], correlation_id: [grant.id], payload });
  }

  private fulfil(proposalId: string, options: FulfilOptions): Decision<unknown> {
    const proposal = this.pendingProposal(proposalId);
    const { call } = options;
    const edited = call !== undefined && (call.method !== proposal.method || JSON.stringify(withoutRuleRef(call.params)) !== JSON.stringify(proposal.params));
    if (!edited && hasApproved(proposal, this.id)) {
      const { required, by } = proposal.approvals!;
      throw new MewSdkError(
        `you already approved proposal ${proposalId} (${by.length} of ${required}): it runs once ${required} different participants approved it`,
      );
    }
    const to = [...(options.to ?? proposal.targets)];
    if (!to.length) throw new MewSdkError(`proposal ${proposalId} names no target to send the request to`);
    const body = this.jsonRpc(
      options.call ?? { method: proposal.method, ...(proposal.params !== undefined && { params: proposal.params as McpCall['params'] }) },
    );
    if (!this.canSend('mcp/request', body)) throw new CapabilityDeniedError('mcp/request');
    const { envelope, result } = this.sendTracked('mcp/request', to, body, options.timeoutMs ?? this.requestTimeoutMs, [proposalId]);
    return { envelope, outcome: observed(result) };
  }

  private reject(proposalId: string, reason: string, explanation?: string, options: RejectOptions = {}): Decision<Envelope<'mcp/reject'>> {
    const proposal = this.pendingProposal(proposalId);
    const { envelope, reply } = this.sendAndAwait(
      {
        kind: 'mcp/reject',
        to: [proposal.proposer],
        correlation_id: [proposalId],
        payload: { reason, ...(explanation && { explanation }), ...(options.rule && { rule: options.rule }) },
      },
      { replyKinds: [], timeoutMs: this.requestTimeoutMs },
    );
    if (explanation) this.chat.send(explanation, proposal.proposer, { correlationId: [envelope.id] });
    return { envelope, outcome: observed(reply as Promise<Envelope<'mcp/reject'>>) };
  }

  private startReasoning(options: ReasoningOptions): ReasoningHandle {
    const start = this.send({
      kind: 'reasoning/start',
      ...(options.correlatedTo !== undefined && { correlation_id: toArray(options.correlatedTo) }),
      payload: options.message === undefined ? {} : { message: options.message },
    });
    const session = new ReasoningSession(
      start.id,
      this.id ?? '',
      (kind, payload) => this.send({ kind, context: start.id, payload } as OutgoingEnvelope),
      () => this.reasoningSessions.delete(start.id),
      options.mirrorToStream,
    );
    this.reasoningSessions.set(start.id, session);
    if (options.mirrorToStream) {
      this.streams.request({ direction: 'upload', encoding: 'text', description: `reasoning ${start.id}` }, { correlationId: [start.id] }).then(
        (stream) => session.attachMirror({ write: (text) => stream.write(text), close: (reason) => this.closeQuietly(stream, reason) }),
        (error) => {
          session.dropMirror();
          this.reportError(error);
        },
      );
    }
    return session;
  }

  // ── Internals ────────────────────────────────────────────────────────────────────────────────────────

  private get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** `mcpRequest`, with the proposal fallback only when `allowProposal` (discovery must not spam approvers). */
  private async request(target: string | string[], call: McpCall, timeoutMs: number, allowProposal: boolean, options: McpRequestOptions): Promise<unknown> {
    const to = toArray(target);
    const body = this.jsonRpc(call);
    options.signal?.throwIfAborted();
    // Proposals carry the MCP call without JSON-RPC framing: the fulfiller makes the actual request. They also say
    // how long I wait (`timeout_ms`, withdrawn after it), so every approver's card counts down to my real deadline.
    const { jsonrpc: _jsonrpc, id: _id, ...unframed } = body;
    const proposal = Number.isFinite(timeoutMs) && timeoutMs > 0 ? { ...unframed, timeout_ms: timeoutMs } : unframed;
    const direct = this.canSend('mcp/request', body);
    if (!direct && !(allowProposal && this.canSend('mcp/proposal', proposal))) {
      throw new CapabilityDeniedError(allowProposal ? 'mcp/request or mcp/proposal' : 'mcp/request');
    }
    const kind = direct ? 'mcp/request' : 'mcp/proposal';
    // My calls are traced (discovery, the SDK's own listing in the background, is not); the span's traceparent rides
    // in the call's params._meta, so the gateway's trace of it, and whoever serves it, continue mine.
    if (allowProposal && otelPending()) await loadOtel();
    const traced = allowProposal ? startMcpCall(kind, to, direct ? body : proposal, this.traceScope, options.traceContext) : undefined;
    let sent: { envelope: SentEnvelope; result: Promise<unknown> };
    try {
      sent = this.sendTracked(kind, to, traced?.payload ?? (direct ? body : proposal), timeoutMs, undefined, options.signal);
    } catch (error) {
      if (traced) endMcpCall(traced.span, error);
      throw error;
    }
    const { envelope, result } = sent;
    if (traced) followMcpCall(traced.span, envelope.id, kind, result, () => this.spaceModel.proposal(envelope.id));
    options.onSent?.(envelope);
    return result;
  }

  /** Where my spans are (sdk-tracing.ts). */
  protected get traceScope(): TraceScope {
    return { space: this.options.space, participant: this.id };
  }

  /** Sends a request or proposal and follows it to its answer on its sent record (a gateway refusal fails it at once). */
  private sendTracked(
    kind: 'mcp/request' | 'mcp/proposal',
    to: string[],
    payload: McpRequestPayload,
    timeoutMs: number,
    correlationId?: string[],
    signal?: AbortSignal,
  ): { envelope: SentEnvelope; result: Promise<unknown> } {
    const envelope = this.send({ kind, to, ...(correlationId && { correlation_id: correlationId }), payload });
    const withdraw = (reason: string) => this.sendQuietly(withdrawal(envelope.id, reason));
    const result = trackMcpRequest(this.client.sent, envelope.id, {
      mode: kind === 'mcp/proposal' ? 'proposal' : 'request',
      targets: to,
      timeoutMs,
      ...(kind === 'mcp/proposal' && { onTimeout: () => withdraw('timeout') }),
    });
    if (signal) {
      const onAbort = () => {
        const state = this.spaceModel.proposal(envelope.id)?.state;
        // Not yet echoed (undefined) counts as pending: an approver may already be looking at it.
        if (kind === 'mcp/proposal' && (state === undefined || state === 'pending')) withdraw('cancelled');
        const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
        this.client.sent.fail(envelope.id, new RequestCancelledError(`${kind} ${envelope.id}`, why));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void result.catch(() => undefined).finally(() => signal.removeEventListener('abort', onAbort));
    }
    return { envelope, result };
  }

  private jsonRpc(call: McpCall): McpRequestPayload {
    return { ...call, jsonrpc: '2.0', id: call.id ?? this.nextJsonRpcId++ };
  }

  /** A pending proposal I may decide: known, pending, and not already decided by a send of mine the gateway has not answered. */
  private pendingProposal(proposalId: string): Proposal {
    const proposal = this.spaceModel.proposal(proposalId);
    if (proposal?.state !== 'pending') {
      throw new MewSdkError(proposal ? `proposal ${proposalId} is already ${proposal.state}` : `no proposal ${proposalId} is known`);
    }
    const sent = this.proposals.sentDecision(proposalId);
    if (sent) throw new MewSdkError(`my ${sent.kind} on proposal ${proposalId} awaits the gateway's answer`);
    return proposal;
  }

  /** Lists a peer's tools again after it said they changed, if I had listed them (others are listed when needed). */
  private rediscover(participantId: string): void {
    if (!this.toolDiscovery.allStatuses().has(participantId)) return;
    this.toolDiscovery.discover(participantId, { force: true }).catch(() => undefined); // the failure is in its status
  }

  private autoDiscover(participantId: string, delayMs: number): void {
    if (!this.options.autoDiscovery) return;
    if (!this.spaceModel.allows(participantId, { kind: 'mcp/response', payload: SAMPLE_MCP_RESPONSE })) return;
    if (!this.canSend('mcp/request', SAMPLE_TOOLS_LIST_REQUEST)) return;
    this.toolDiscovery.discover(participantId, { delayMs }).catch(() => undefined); // the failure is in its status
  }

  private closeChat(chatId: string, kind: 'chat/acknowledge' | 'chat/cancel', payload: Record<string, unknown>): SentEnvelope {
    const chat = this.spaceModel.chatMessage(chatId);
    const sent = this.send({ kind, ...(chat && { to: [chat.from] }), correlation_id: [chatId], payload } as OutgoingEnvelope);
    const me = this.id;
    if (me !== undefined && this.spaceModel.sentReceipt({ ...sent, from: me, ts: new Date().toISOString() } as AnyEnvelope, Date.now())) {
      this.hub.emit('chat-queue', this.spaceModel.pendingChats());
    }
    return sent;
  }

  private streamHandle(info: StreamInfo): MewStream {
    return {
      info,
      // The gateway refuses a paused participant's frames: drop them here rather than earn a refusal for each.
      write: (data) => this.ownPause.current === undefined && this.client.sendStreamData(info.id, data),
      close: (reason = 'complete') =>
        this.send({
          kind: 'stream/close',
          ...(info.openId && { correlation_id: [info.openId] }),
          payload: { stream_id: info.id, reason },
        }),
    };
  }

  private recordIfGiven(usage: ContextUsage | void): void {
    if (usage) this.contextTelemetry.record(usage);
  }

  /** A status report the SDK makes on its own: skipped when my capabilities do not allow it. */
  private reportStatusQuietly(status?: string, correlationId?: string[], fields?: readonly string[]): void {
    const envelope = this.statusEnvelope(status, correlationId, fields);
    if (this.canSend(envelope.kind, envelope.payload)) this.sendQuietly(envelope);
  }

  private statusEnvelope(status?: string, correlationId?: string[], fields?: readonly string[]): InboundEnvelope<'participant/status'> {
    return {
      kind: 'participant/status',
      ...(correlationId && { correlation_id: correlationId }),
      payload: this.contextTelemetry.buildStatusPayload(status, fields),
    };
  }

  private closeQuietly(stream: MewStream, reason: string): void {
    try {
      stream.close(reason);
    } catch (error) {
      this.reportError(error);
    }
  }

  /** Sends what the SDK sends on its own (answers, reports): a failure is an `error` event, not a throw. */
  private sendQuietly(envelope: OutgoingEnvelope): void {
    try {
      this.send(envelope);
    } catch (error) {
      this.reportError(error);
    }
  }

  private reportError(error: unknown): void {
    this.hub.emit('error', error instanceof Error ? error : new Error(String(error)));
  }
}

/** `mcp/withdraw` of my proposal (the correlation is how the gateway and everyone know which). */
function withdrawal(proposalId: string, reason: string): OutgoingEnvelope {
  return { kind: 'mcp/withdraw', correlation_id: [proposalId], payload: { reason } };
}

function pauseView(pause: OwnPause): ParticipantControls {
  return {
    get pause() {
      return pause.current;
    },
  };
}

function toArray(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}
