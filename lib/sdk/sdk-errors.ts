import { formatIssues, type EnvelopeIssue, type SystemErrorPayload } from '../protocol';

/**
 * The errors the SDK throws or rejects with. Each has its own class (so `instanceof` works) and a message
 * that says what happened and what to do about it.
 *
 * @example
 * try { await participant.mcpRequest('calc', payload, 5000); }
 * catch (e) { if (e instanceof ProposalRejectedError) console.log(e.rejectedBy, e.reason); }
 */
export class MewSdkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** `send` while the connection is down and the outbound queue already holds its limit. */
export class OutboundQueueFullError extends MewSdkError {
  constructor(readonly limit: number) {
    super(`outbound queue is full: ${limit} envelopes are already waiting for the connection to come back; this one was not sent`);
  }
}

/** The connection ended for good (bad token, kicked, replaced, or `disconnect()`); nothing will be sent. */
export class ConnectionClosedError extends MewSdkError {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(`connection closed (${code}${reason ? `: ${reason}` : ''}); it will not reconnect`);
  }
}

/**
 * An envelope I sent whose fate nobody will learn: the connection ended for good (or `disconnect()`) before the
 * gateway echoed or refused it, so it may or may not have been accepted (see the client's `unacknowledged` event).
 */
export class UnacknowledgedSendError extends MewSdkError {
  constructor(
    readonly envelopeId: string,
    readonly reason: string,
  ) {
    super(`envelope ${envelopeId} was sent but never acknowledged (${reason}); the gateway may or may not have accepted it`);
  }
}

/** A frame the gateway sent that is neither a stream frame nor a valid envelope (reported, then dropped). */
export class InboundFrameError extends MewSdkError {}

/** An envelope the SDK refused to send because it is not a valid v0.4 envelope. */
export class InvalidEnvelopeError extends MewSdkError {
  constructor(readonly issues: readonly EnvelopeIssue[]) {
    super(`invalid envelope: ${formatIssues(issues)}`);
  }
}

/** Sending a non-exempt kind while paused (the gateway would refuse it with `participant_paused` too). */
export class ParticipantPausedError extends MewSdkError {
  constructor(
    readonly kind: string,
    readonly pausedBy: string,
    readonly pauseReason?: string,
  ) {
    super(`paused by ${pausedBy}${pauseReason ? ` (${pauseReason})` : ''}: cannot send "${kind}" until resumed`);
  }
}

/** My capabilities allow neither the direct form nor the proposal form of an operation. */
export class CapabilityDeniedError extends MewSdkError {
  constructor(readonly kind: string) {
    super(`my capabilities do not allow "${kind}" with this payload`);
  }
}

/** The gateway refused an envelope (`system/error` correlated to it). */
export class GatewayRefusalError extends MewSdkError {
  readonly code: string;
  constructor(
    readonly payload: SystemErrorPayload,
    /** The `system/error` envelope's id (UIs key their notice by it, so one refusal is one notice). */
    readonly envelopeId?: string,
  ) {
    super(`gateway refused the envelope: ${payload.error}${payload.message ? `: ${payload.message}` : ''}`);
    this.code = payload.error;
  }
}

/** An MCP request answered with a JSON-RPC error. */
export class McpError extends MewSdkError {
  constructor(
    readonly code: number,
    /** The JSON-RPC error message, without the prefix `message` adds. */
    readonly reason: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${reason}`);
  }
}

/** A proposal declined with `mcp/reject` (the SDK fails fast on the first rejection). */
export class ProposalRejectedError extends MewSdkError {
  constructor(
    readonly rejectedBy: string,
    readonly reason: string,
  ) {
    super(`Proposal rejected by ${rejectedBy}: ${reason}`);
  }
}

/** The caller gave up (its `AbortSignal` fired). For a proposal, the SDK has already sent `mcp/withdraw`. */
export class RequestCancelledError extends MewSdkError {
  constructor(
    readonly what: string,
    readonly reason: string,
  ) {
    super(`${what} cancelled: ${reason}`);
  }
}

/** No answer in time. For a proposal, the SDK has already sent `mcp/withdraw`. */
export class RequestTimeoutError extends MewSdkError {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} timed out after ${timeoutMs} ms`);
  }
}
