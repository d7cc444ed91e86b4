/**
 * The MEW SDK, layers 1 and 2 (`shared/specs/mew-sdk.md`): isomorphic, so the same code runs in Node and in the
 * browser (no Node-only imports; `isomorphic-ws` for the socket).
 *
 * - `MEWClient`: one connection to a space: token auth (on the upgrade, or a join frame for other MEW gateways),
 *   status (`disconnected → connecting → connected → ready`, or the final `error`), typed events, reconnect (forever
 *   by default) with jittered backoff, an outbound queue, rate-limit retries, liveness, `#streamId#data` frames.
 * - `MEWParticipant`: owns a client and speaks the protocol: serves its tools and resources, calls others'
 *   (falling back to proposals), discovers tools, tracks proposals, chats and acknowledgements, obeys
 *   participant controls, reports telemetry, reasons out loud, opens streams. Its `spaceModel` (lib/sdk/model) is the
 *   one state of the space it sees, which the control room's store views; `client.sent` is the one record of what
 *   became of each envelope it sent.
 *
 * @example
 * import { MEWParticipant } from '@/lib/sdk';
 * const me = new MEWParticipant({ gateway: 'ws://localhost:3000/ws', space: 'demo', token });
 * me.tools.register({ name: 'echo', execute: ({ text }) => String(text) });
 * await me.connect();
 * me.chat.send('ready');
 */
export { MEWClient } from './mew-client';
export type {
  ClientEvents,
  CloseInfo,
  ConnectionStatus,
  JoinMode,
  MEWClientOptions,
  OutgoingEnvelope,
  SentEnvelope,
  StatusChange,
  Unacknowledged,
} from './mew-client';
export { MEWParticipant } from './mew-participant';
export type { ControlHooks, McpRequestOptions, MEWParticipantOptions, ParticipantEvents } from './mew-participant';
export type { McpCall } from './mcp-call';
export { ApprovalRecorded } from './mcp-request-tracker';
export type {
  AcknowledgedOperation,
  Decision,
  FulfilOptions,
  OperateArgs,
  OperateOptions,
  Operation,
  OperatorAction,
  ParticipantOperate,
  RejectOptions,
  MewStream,
  ParticipantChat,
  ParticipantControls,
  ParticipantDiscovery,
  ParticipantProposals,
  ParticipantReasoning,
  ParticipantStreams,
  ParticipantTelemetry,
  ParticipantTools,
  ReasoningOptions,
} from './participant-namespaces';
export type { AwaitOptions, SendState, SentEnvelopes, SentRecord } from './sent-envelopes';
export {
  CapabilityDeniedError,
  ConnectionClosedError,
  GatewayRefusalError,
  InboundFrameError,
  InvalidEnvelopeError,
  McpError,
  MewSdkError,
  OutboundQueueFullError,
  ParticipantPausedError,
  ProposalRejectedError,
  RequestCancelledError,
  RequestTimeoutError,
  UnacknowledgedSendError,
} from './sdk-errors';
export * from './sdk-defaults';
export { createWebSocketTransport, spaceUrl } from './transport';
export type { OpenInfo, Transport, TransportFactory, TransportHandlers, TransportRequest } from './transport';
export { backoffDelay, type Backoff } from './backoff';
export { reconnectDelay, type BackoffOptions } from './reconnect-backoff';
export type { Unsubscribe } from './event-hub';
export type { StreamData } from '../protocol';
export { JSONRPC_ERROR_CODES } from '../protocol';
export type { McpAnswer, McpFallbackHandler, ResourceContents, ResourceDefinition, ToolCallContext, ToolDefinition, ToolDescriptor } from './local-mcp-server';
export type { ListedTool, ToolSecurity } from '../protocol';
export { validateJsonSchema, type JsonSchema, type SchemaIssue } from './json-schema-validator';
export type { DiscoveredTool, DiscoveryOptions, DiscoveryState, DiscoveryStatus } from './tool-discovery';
export type { Proposal, ProposalStatus } from './model/proposals-slice';
export type { PauseInfo } from './own-pause';
export type { ContextUsage, TelemetryOptions } from './context-telemetry';
export type { ReasoningCancel, ReasoningHandle } from './reasoning-session';
export type { StreamInfo } from './model/streams-slice';
export type { ModelChanges, ParticipantModel, Peer } from './participant-model';
