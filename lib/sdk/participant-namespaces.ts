import type { Envelope, ParticipantStatusPayload, RuleRef, StreamData, StreamRequestPayload } from '../protocol';
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
   * resolves with the result.
   *
   * @example
   * participant.on('proposal', (p) => p.state === 'pending' && participant.proposals.fulfil(p.id));
   */
  fulfil(proposalId: string, options?: FulfilOptions): Decision<unknown>;
  /**
   * Rejects a pending proposal (`mcp/reject` to its proposer); with an explanation, a chat correlated to the reject
   * follows. `outcome` resolves once the gateway accepted the reject.
   *
   * @example
   * participant.proposals.reject(id, 'unsafe', 'That path is outside the project');
   */
  reject(proposalId: string, reason?: string, explanation?: string, options?: RejectOptions): Decision<Envelope<'mcp/reject'>>;
  /** Others' proposals still waiting for a decision, oldest first (the space model's `Proposal`s). */
  pending(): Proposal[];
  get(proposalId: string): Proposal | undefined;
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
  /** Asks another participant for its status (`participant/request-status`). */
  request(target: string, fields?: string[]): SentEnvelope;
}

/** Participant controls addressed to me (spec §3.9); the reactions are the `hooks` option. */
export interface ParticipantControls {
  /** My current pause, if any (sends other than the exempt kinds fail at once while it lasts). */
  readonly pause: PauseInfo | undefined;
}

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
