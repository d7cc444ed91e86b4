import type {
  CapabilityGrantPayload,
  CapabilityRevokePayload,
  Envelope,
  Kind,
  ParticipantClearPayload,
  ParticipantCompactPayload,
  ParticipantForgetPayload,
  ParticipantPausePayload,
  ParticipantRequestStatusPayload,
  ParticipantRestartPayload,
  ParticipantShutdownPayload,
  ParticipantStatusPayload,
  ReasoningCancelPayload,
  RuleRef,
  SpaceInvitePayload,
  SpaceKickPayload,
  StreamData,
  StreamRequestPayload,
} from '../protocol';
import type { ContextUsage } from './context-telemetry';
import type { Unsubscribe } from './event-hub';
import type { McpRequestHandler, ResourceDefinition, ToolDefinition } from './local-mcp-server';
import type { SentEnvelope } from './mew-client';
import type { PauseInfo } from './own-pause';
import type { ChatMessage } from './model/chat-slice';
import type { Proposal } from './model/proposals-slice';
import type { ReasoningHandle } from './reasoning-session';
import type { StreamInfo } from './model/streams-slice';
import type { DiscoveredTool, DiscoveryStatus } from './tool-discovery';

import type { McpCall } from './mcp-call';

/** The tools and resources I serve through `tools/list`, `tools/call`, `resources/list` and `resources/read`. */
export interface ParticipantTools {
  /**
   * Serves a tool; its arguments are validated against `inputSchema` (all of JSON Schema) before `execute` runs.
   *
   * @example
   * participant.tools.register({ name: 'echo', security: { risk_level: 'safe' }, execute: ({ text }) => String(text) });
   */
  register(tool: ToolDefinition): void;
  /**
   * Serves a resource.
   *
   * @example
   * participant.tools.tools.registerResource({ uri: 'memo://notes', name: 'Notes', mimeType: 'text/plain', read: () => notes });
   */
  registerResource(resource: ResourceDefinition): void;
  /**
   * Answers every MCP request addressed to me with `handler` instead of the registered tools and resources: a
   * bridge to another MCP server. Call `announceToolsChanged` when its tools change.
   *
   * @example
   * participant.tools.forward((method, params) => upstream.request(method, params));
   */
  forward(handler: McpRequestHandler): void;
  /**
   * Tells the space my tools changed (`notifications/tools/list_changed`), so those who listed them list again.
   * Sent only when connected and allowed: those who join later list my tools anyway.
   */
  announceToolsChanged(): void;
}

/** Others' tools, found with `tools/list` (spec "Tool Discovery and State Management"). */
export interface ParticipantDiscovery {
  /** Fetches a participant's tools now (retried with backoff), bypassing the cache. */
  discover(participantId: string): Promise<DiscoveredTool[]>;
  /** Every tool discovered so far, attributed to its participant (the spec's `getAvailableTools`). */
  available(): DiscoveredTool[];
  /** Discovery state per participant (`not_started`, `in_progress`, `completed`, `failed`, `no_tools`). */
  status(): Map<string, DiscoveryStatus>;
  /** Whether a discovery is running or scheduled (the spec's `hasDiscoveriesInProgress`). */
  inProgress(): boolean;
  /** Waits until no discovery is in progress, at most `maxWaitMs`; true if they all finished. */
  waitForPending(maxWaitMs: number): Promise<boolean>;
}

/** How I decide on a proposal: the call to make (edited, or the proposal's own) and where to send it. */
export interface FulfilOptions {
  /** Replaces the proposed method/params (edit-then-approve). */
  call?: McpCall;
  /** Where the request goes. @default the proposal's `to` */
  to?: string[];
  timeoutMs?: number;
}

/** More of a reject's payload. */
export interface RejectOptions {
  /** The approval rule that decided (a rule supervisor's rejects name it). */
  rule?: RuleRef;
}

/** A decision sent: the envelope (its id correlates everything after) and what became of it. */
export interface Decision<T> {
  envelope: SentEnvelope;
  /** The fulfilment's result, or the rejection's acceptance; rejects with the gateway's refusal or an MCP error. */
  outcome: Promise<T>;
}

/** Others' proposals (spec §3.2–3.3) and my decisions on them. */
export interface ParticipantProposals {
  /**
   * Fulfils a pending proposal: its call (or an edited one) as an `mcp/request` correlated to it; `outcome`
   * resolves with the result. Throws `MewSdkError` when it is not pending (expired included) or my decision on it
   * is already on its way (`sentDecision`).
   *
   * @example
   * participant.on('proposal', (p) => p.state === 'pending' && participant.proposals.fulfil(p.id));
   */
  fulfil(proposalId: string, options?: FulfilOptions): Decision<unknown>;
  /**
   * Rejects a pending proposal (`mcp/reject` to its proposer); with an explanation, a chat correlated to the reject
   * follows. `outcome` resolves once the gateway accepted the reject. Throws as `fulfil` does.
   *
   * @example
   * participant.proposals.reject(id, 'unsafe', 'That path is outside the project');
   */
  reject(proposalId: string, reason?: string, explanation?: string, options?: RejectOptions): Decision<Envelope<'mcp/reject'>>;
  /**
   * Others' proposals still waiting for a decision, oldest first (the space model's `Proposal`s): what the control
   * room's queue shows, expiry included (a proposal past its deadline is `expired`, never pending).
   */
  pending(): Proposal[];
  get(proposalId: string): Proposal | undefined;
  /**
   * My fulfilment or reject of the proposal that the gateway has neither accepted nor refused yet; meanwhile
   * `fulfil` and `reject` refuse to send a second decision, so a tool never runs twice by accident.
   *
   * @example
   * if (participant.proposals.sentDecision(id)) return; // already on its way
   */
  sentDecision(proposalId: string): SentEnvelope | undefined;
}

/** Chat (spec §3.4) and the acknowledgement queue of chats addressed to me. */
export interface ParticipantChat {
  /**
   * Sends a chat message, to everyone or to the named participants.
   *
   * @example
   * participant.chat.send('Done: 3 files changed', 'alice');
   */
  send(text: string, to?: string | string[], options?: { format?: 'plain' | 'markdown'; correlationId?: string[] }): SentEnvelope;
  /** Chats addressed to me awaiting acknowledgement, oldest first (the space model's `ChatMessage`s). */
  pending(): ChatMessage[];
  /** `chat/acknowledge` to the chat's sender; takes it off my queue. */
  acknowledge(chatId: string, status?: string): SentEnvelope;
  /** `chat/cancel`: the chat no longer needs attention; takes it off my queue. */
  cancel(chatId: string, reason?: string): SentEnvelope;
}

/** My context telemetry (spec §3.9.3) and asking others for theirs. */
export interface ParticipantTelemetry {
  /**
   * Records my context usage. Crossing the soft limit (90% of `max_tokens` by default) sends one proactive
   * `participant/status`; the next needs usage to fall below the re-arm ratio (80%) first.
   */
  record(usage: ContextUsage): void;
  /** A `participant/status` payload from the current telemetry (always with `messages_in_context`). */
  statusPayload(status?: string): ParticipantStatusPayload;
  /** Broadcasts my status, optionally correlated to what asked for it. */
  report(options?: { status?: string; correlationId?: string[] }): SentEnvelope;
  /** Asks another participant for its status (`participant/request-status`), as `operate.requestStatus` does. */
  request(target: string, fields?: string[]): SentEnvelope;
}

/** Participant controls addressed to me (spec §3.9); the reactions are the `hooks` option. */
export interface ParticipantControls {
  /** My current pause, if any (sends other than the exempt kinds fail at once while it lasts). */
  readonly pause: PauseInfo | undefined;
}

/** An operator action sent (`participant.operate`): the envelope and whether the gateway took it. */
export interface Operation<K extends Kind = Kind> {
  /** As sent; its id is what the echo, a refusal, replies and the audit log correlate to. */
  envelope: SentEnvelope;
  /**
   * Resolves with my echo once the gateway accepted and routed it; rejects with its refusal (`GatewayRefusalError`:
   * `capability_violation`, `grant_exceeds_own_capabilities`, `unknown_participant`…), `RequestTimeoutError`,
   * `UnacknowledgedSendError` or `ConnectionClosedError`. Already marked handled: nobody has to await it.
   */
  accepted: Promise<Envelope<K>>;
}

/** An operator action answered with an ack: a grant (the recipient's `capability/grant-ack`), an invite (the gateway's `space/invite-ack`). */
export interface AcknowledgedOperation<K extends Kind, A extends Kind> extends Operation<K> {
  /** The ack correlated to it (its `status` may still say `rejected`); rejects like `accepted`. Marked handled too. */
  ack: Promise<Envelope<A>>;
}

/** More of an operator action. */
export interface OperateOptions {
  /** How long `accepted` (and `ack`) wait. @default OPERATION_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * What an operator does to others (spec §3.6 capabilities and space management, §3.9 participant controls, §3.5.5
 * cancelling reasoning): each method builds the one envelope for it, sends it (a pause of mine refuses it at once,
 * like `send`) and follows what the gateway makes of it. Nothing is refused locally: the gateway decides, and its
 * refusal rejects `accepted`; ask `allows` first to offer only what would pass.
 */
export interface ParticipantOperate {
  /**
   * Whether my capabilities (the gateway's matcher) allow this call: the envelope it would send, kind and payload.
   *
   * @example
   * participant.operate.allows('pause', 'agent'); // may I pause agent?
   * participant.operate.allows('grant', { recipient: 'agent', capabilities: [{ kind: 'chat' }] });
   */
  allows<A extends OperatorAction>(action: A, ...args: OperateArgs<A>): boolean;
  /**
   * `capability/grant` to `payload.recipient`; I must hold every capability I grant. The grant's id (`envelope.id`)
   * is what a revoke by `grant_id` names. `ack` is the recipient's `capability/grant-ack`.
   *
   * @example
   * const { accepted } = participant.operate.grant({ recipient: 'agent', capabilities: [{ kind: 'chat' }], reason: 'needs to talk' });
   * await accepted; // or GatewayRefusalError 'grant_exceeds_own_capabilities'
   */
  grant(payload: CapabilityGrantPayload, options?: OperateOptions): AcknowledgedOperation<'capability/grant', 'capability/grant-ack'>;
  /**
   * `capability/revoke` to `payload.recipient`, by `grant_id` or by pattern (every granted capability it covers).
   *
   * @example
   * participant.operate.revoke({ recipient: 'agent', grant_id: grant.envelope.id });
   */
  revoke(payload: CapabilityRevokePayload, options?: OperateOptions): Operation<'capability/revoke'>;
  /**
   * `space/invite`; the gateway answers me alone with `space/invite-ack` (`ack`), which carries the minted token.
   *
   * @example
   * const { ack } = participant.operate.invite({ participant_id: 'guest', initial_capabilities: [{ kind: 'chat' }] });
   * const { token, connection_url } = (await ack).payload;
   */
  invite(payload: SpaceInvitePayload, options?: OperateOptions): AcknowledgedOperation<'space/invite', 'space/invite-ack'>;
  /**
   * `space/kick` (to the participant it names): the gateway disconnects it and revokes its tokens.
   *
   * @example
   * participant.operate.kick({ participant_id: 'mallory', reason: 'spam' });
   */
  kick(payload: SpaceKickPayload, options?: OperateOptions): Operation<'space/kick'>;
  /**
   * `participant/pause` to `target`: the gateway refuses its envelopes (but acknowledgements, status, responses)
   * until a resume or `timeout_seconds`.
   *
   * @example
   * participant.operate.pause('agent', { reason: 'rate_limit', timeout_seconds: 60 });
   */
  pause(target: string, payload?: ParticipantPausePayload, options?: OperateOptions): Operation<'participant/pause'>;
  /**
   * `participant/resume` to `target`, correlated to the pause it lifts when `pauseId` is given.
   *
   * @example
   * participant.operate.resume('agent', { pauseId: pause.envelope.id });
   */
  resume(target: string, options?: OperateOptions & { pauseId?: string }): Operation<'participant/resume'>;
  /**
   * `participant/request-status` to `target`; it answers with a `participant/status` correlated to this envelope.
   *
   * @example
   * participant.operate.requestStatus('agent', { fields: ['tokens'] });
   */
  requestStatus(target: string, payload?: ParticipantRequestStatusPayload, options?: OperateOptions): Operation<'participant/request-status'>;
  /**
   * `participant/forget` to `target`: drop cached context from one end.
   *
   * @example
   * participant.operate.forget('agent', { direction: 'oldest', entries: 10 });
   */
  forget(target: string, payload: ParticipantForgetPayload, options?: OperateOptions): Operation<'participant/forget'>;
  /**
   * `participant/compact` to `target`; it answers with `participant/compact-done`.
   *
   * @example
   * participant.operate.compact('agent', { reason: 'operator_request', target_tokens: 4000 });
   */
  compact(target: string, payload?: ParticipantCompactPayload, options?: OperateOptions): Operation<'participant/compact'>;
  /**
   * `participant/clear` to `target`: wipe all its context.
   *
   * @example
   * participant.operate.clear('agent');
   */
  clear(target: string, payload?: ParticipantClearPayload, options?: OperateOptions): Operation<'participant/clear'>;
  /**
   * `participant/restart` to `target`: back to its baseline (grants stay).
   *
   * @example
   * participant.operate.restart('agent');
   */
  restart(target: string, payload?: ParticipantRestartPayload, options?: OperateOptions): Operation<'participant/restart'>;
  /**
   * `participant/shutdown` to `target`: the gateway refuses its envelopes until it rejoins.
   *
   * @example
   * participant.operate.shutdown('agent');
   */
  shutdown(target: string, payload?: ParticipantShutdownPayload, options?: OperateOptions): Operation<'participant/shutdown'>;
  /**
   * `reasoning/cancel` of another's reasoning sequence (`context` and `correlation_id` name its `reasoning/start`).
   *
   * @example
   * participant.operate.cancelReasoning(thread.from, thread.id, { reason: 'cancelled by human' });
   */
  cancelReasoning(owner: string, reasoningId: string, payload?: ReasoningCancelPayload, options?: OperateOptions): Operation<'reasoning/cancel'>;
}

/** Every operator action of `participant.operate`. */
export type OperatorAction = Exclude<keyof ParticipantOperate, 'allows'>;

/** The arguments of the operator action `A` (what `allows` takes to ask about that very call). */
export type OperateArgs<A extends OperatorAction> = Parameters<ParticipantOperate[A]>;

/** Reasoning sequences I think out loud in (spec §3.5). */
export interface ParticipantReasoning {
  /**
   * Starts a reasoning sequence (`reasoning/start`).
   *
   * @example
   * const reasoning = participant.reasoning.start({ correlatedTo: chat.id, mirrorToStream: true });
   * reasoning.thought('Looking up the weather');
   * reasoning.conclude('22°C in Tokyo');
   */
  start(options?: ReasoningOptions): ReasoningHandle;
}

export interface ReasoningOptions {
  /** `reasoning/start`'s `message`. */
  message?: string;
  /** Id(s) of what prompted the reasoning (the request or chat being answered). */
  correlatedTo?: string | string[];
  /** Also mirror thoughts into a stream, one `{"message"}` JSON object per frame (requested now; thoughts before it opens are flushed into it). */
  mirrorToStream?: boolean;
}

/** A stream I can write to and close (mine, or one that lists me as a writer). */
export interface MewStream {
  readonly info: StreamInfo;
  /** Sends one `#id#data` frame; false (and dropped) while disconnected or paused. */
  write(data: string | Uint8Array): boolean;
  /** Sends `stream/close`. */
  close(reason?: string): SentEnvelope;
}

/** Data streams (spec §3.10). */
export interface ParticipantStreams {
  /**
   * Asks the gateway for a stream and resolves once its `stream/open` arrives.
   *
   * @example
   * const stream = await participant.streams.request({ direction: 'upload', encoding: 'text' });
   * stream.write('line 1');
   */
  request(payload: StreamRequestPayload, options?: { correlationId?: string[]; timeoutMs?: number }): Promise<MewStream>;
  /** The streams open in the space (from the welcome, `stream/open` and `stream/close`). */
  active(): StreamInfo[];
  /** Subscribes to the frames of one stream. */
  onData(streamId: string, listener: (data: StreamData) => void): Unsubscribe;
}
