/**
 * Every default timing and size of the SDK, in one place. Options override them per client or participant;
 * nothing else in `lib/sdk` hard-codes a number that a caller might want to tune.
 */

// ── Connection (MEWClient) ──────────────────────────────────────────────────────────────────────────────

/** First reconnect delay, before jitter. */
export const RECONNECT_MIN_DELAY_MS = 500;

/** Cap of the reconnect delay while the page is visible (or outside browsers). */
export const RECONNECT_MAX_DELAY_MS = 30_000;

/** Cap of the reconnect delay while the browser tab is hidden: nobody is looking, so spare the gateway. */
export const RECONNECT_HIDDEN_MAX_DELAY_MS = 5 * 60_000;

/** A hidden tab waits this many times longer than a visible one at the same attempt. */
export const RECONNECT_HIDDEN_DELAY_FACTOR = 4;

/** Growth of the delay per failed attempt. */
export const RECONNECT_DELAY_EXPONENT = 1.5;

/**
 * Share of each delay that is randomised (0.5: between 50% and 100% of the computed delay), so clients dropped
 * together by a gateway restart do not all come back in the same millisecond.
 */
export const RECONNECT_JITTER_RATIO = 0.5;

/** An attempt that has not received its welcome by then is abandoned and retried. */
export const CONNECT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * How often a Node client pings the gateway (a WebSocket protocol ping); a peer that has sent nothing, not even
 * the pong, by the next tick is considered dead and the connection is replaced.
 */
export const HEARTBEAT_INTERVAL_MS = 15_000;

/** Envelopes `send` keeps while the connection is down; one more is refused with `OutboundQueueFullError`. */
export const OUTBOUND_QUEUE_LIMIT = 1_000;

/** Reconnect attempts after a drop before the client gives up (`error`): never, by default. */
export const MAX_RECONNECT_ATTEMPTS = Infinity;

/**
 * How the client authenticates (`join` option): `auto` sends the token on the upgrade (header in Node, subprotocol
 * in browsers) and falls back to a first-frame join when no welcome comes, so it joins gateways of either kind.
 */
export const DEFAULT_JOIN_MODE = 'auto';

/**
 * In `auto` join mode, how long an open connection may stay silent before the client sends the join frame: a
 * gateway that waits for a join frame says nothing at all. Only where the gateway selected no MEW subprotocol: one
 * that selected `mew.v0.4` (or a `mew.bearer.*`) took the upgrade's token, however long its welcome takes.
 * Well below the 5 s such gateways allow for the frame.
 */
export const JOIN_FRAME_FALLBACK_MS = 1_000;

/**
 * Times an envelope refused with `rate_limited` is sent again, each after the gateway's `retry_after_ms`; the
 * refusal after the last retry is passed on (a `GatewayRefusalError` for whoever awaits it).
 */
export const RATE_LIMIT_MAX_RETRIES = 3;

/**
 * Envelope ids a client remembers having dispatched, across reconnects: one delivered again (a catch-up that overlaps
 * what was seen, the gateway's answer to a resend, a gateway restart that replays its history) is not emitted twice.
 * Ten thousand ids cost about a megabyte and cover more than a gateway's history ring (1,000 by default) replays.
 */
export const RECENT_ENVELOPE_IDS = 10_000;

// ── Participant (MEWParticipant) ────────────────────────────────────────────────────────────────────────

/** `mcpRequest`'s default timeout (the MCP TypeScript SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long an operator action's `accepted` (and `ack`) wait (`participant.operate`): long enough for one sent while
 * disconnected to go out from the outbound queue after a reconnect and be answered.
 */
export const OPERATION_TIMEOUT_MS = 120_000;

/** `requestStream`'s default wait for the gateway's `stream/open`. */
export const STREAM_OPEN_TIMEOUT_MS = 10_000;

/** Timeout of one `tools/list` discovery attempt. */
export const DISCOVERY_TIMEOUT_MS = 10_000;

/** Attempts per discovery before the participant is marked `failed` (spec: "retry up to 3 times"). */
export const DISCOVERY_MAX_ATTEMPTS = 3;

/** Wait before the second attempt; doubles for each later one. */
export const DISCOVERY_RETRY_BASE_DELAY_MS = 2_000;

/** Growth of the wait per failed discovery attempt (`backoffDelay`'s exponent; no jitter, no cap: attempts are few). */
export const DISCOVERY_RETRY_EXPONENT = 2;

/** Discovered tools are served from cache this long, then refreshed in the background when read. */
export const DISCOVERY_TTL_MS = 5 * 60_000;

/** Auto-discovery of the participants listed in a welcome is spread out by this much each, to avoid a storm. */
export const DISCOVERY_STAGGER_MS = 250;

/**
 * `mcp/request`s addressed to me whose responses a participant keeps, by envelope id: the same request delivered
 * again is answered with the stored response instead of running its tool twice.
 */
export const ANSWERED_REQUESTS = 1_000;

/** Proactive `participant/status` once tokens reach this share of `max_tokens` (spec: "90% by default"). */
export const TELEMETRY_SOFT_LIMIT_RATIO = 0.9;

/** The soft-limit alarm re-arms only after usage drops below this share, so it does not fire on every token. */
export const TELEMETRY_REARM_RATIO = 0.8;
