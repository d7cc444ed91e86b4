/**
 * The one list of gateway error codes: `system/error` `payload.error` on the socket, the `error` field of
 * HTTP error bodies. Values are one-line descriptions (DESIGN.md, "Gateway error codes").
 */
export const ERROR_CODES = {
  // Envelope-level refusals, answered with `system/error`; the connection stays open.
  invalid_json: 'A text frame that is not JSON (and not a `#id#data` stream frame).',
  invalid_envelope: 'JSON that is not a valid envelope for its kind; `issues` lists what is wrong.',
  message_too_large: 'A frame or HTTP body over the size limit.',
  identity_mismatch: '`from` differs from the authenticated participant.',
  reserved_kind: 'A participant sent a kind only the gateway may emit (`system/*`, `stream/open`, `space/invite-ack`).',
  capability_violation: 'No capability matches the envelope (carries `attempted_kind`, `your_capabilities`).',
  grant_exceeds_own_capabilities: 'A grant or invite gives capabilities the sender does not hold.',
  participant_paused: 'The sender is paused and the kind is not pause-exempt.',
  participant_shutdown: 'The sender is shut down and the kind is not pause-exempt.',
  rate_limited: 'The sender exceeded its message rate (carries `retry_after_ms`).',
  unknown_participant: 'A grant, revoke, kick or control names no such participant.',
  unknown_grant: 'A revoke names a `grant_id` that is not an active grant of its recipient.',
  unknown_stream: 'A frame or close for a stream that does not exist.',
  unauthorized_stream_write: 'A frame or close for a stream the sender may not write or close.',
  already_exists: 'An invite for a participant id that already exists.',
  not_proposer: 'An `mcp/withdraw` of a proposal someone else proposed (only the proposer withdraws, spec §3.3.1).',
  // Connection and HTTP-level refusals.
  invalid_token: 'The bearer token is missing or unknown.',
  origin_not_allowed: 'A browser upgrade or request from an Origin not on the allow-list.',
  unknown_space: 'The named space does not exist.',
  join_timeout: 'No valid token or join frame arrived in time after the socket opened.',
  not_found: 'No such HTTP route or resource.',
  method_not_allowed: 'The HTTP method is not supported on this route.',
  unsupported_media_type: 'An HTTP body that is not `application/json`.',
  invalid_cursor: 'An `after=` history cursor that is not one the gateway issued (`<epoch>-<seq>`, or `0` for the start).',
  invalid_rule: 'An approval rule that is malformed, has a bad pattern, or fails its own examples (`issues` says where).',
  unknown_rule: 'No approval rule with this id in the space.',
  no_rule_supervisor:
    'A rule created or changed in a space where nothing would apply it: its config turns the rule supervisor off (`automation.supervisor: false`), or the supervisor was kicked.',
  invalid_budget: 'A participant budget that is malformed (`issues` says where): tokens and/or usd above 0.',
  invalid_request:
    'An HTTP request the gateway cannot read: a path that is not valid percent-encoding, a `coalesce=` that is not a number, or a malformed request.',
  // Notifications (Web Push, action links, webhooks).
  invalid_subscription: 'A push subscription that is malformed (`issues` says where), or whose endpoint is not allowed.',
  unknown_subscription: 'No push subscription of the caller with this endpoint in the space.',
  invalid_webhook: 'A webhook that is malformed (`issues` says where), or whose URL is not allowed.',
  unknown_webhook: 'No webhook with this id in the space.',
  invalid_action_token: 'An action link whose token is malformed, altered, or issued for another space, proposal or action.',
  action_token_expired: 'An action link past its short lifetime: open the proposal in the control room.',
  action_token_used: 'An action link already used: each works once.',
  unknown_proposal: 'No proposal with this id that the gateway knows of in the space.',
  unknown_tool: 'No tool of this name seen from this participant in the space (its `tools/list` names its tools).',
  unknown_mcp_session: 'No live MCP session of the space whose id starts with this prefix.',
  ambiguous_mcp_session: 'Several live MCP sessions of the space have ids that start with this prefix: give more of the id.',
  proposal_not_pending: 'The proposal was already decided (fulfilled, rejected, withdrawn).',
  proposal_changed: 'The proposal with this id is not the content the action link was issued for.',
  confirmation_required: 'A dangerous or confirm-first tool (or one of undeclared risk) is approved in the control room only.',
  request_too_large: 'HTTP request headers or URL over the server\u2019s limit.',
  space_unavailable: 'Cluster mode: the space has no live owner right now (a takeover is under way); retry in a few seconds.',
  oauth_failed:
    'An OAuth step with a remote MCP server\u2019s authorization server failed (discovery, registration, code exchange): the message says which and why.',
  internal_error: 'An unexpected gateway failure; details are in the server log, not the reply.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** HTTP status for each code, so the injection endpoints and the socket agree on meaning. */
export const ERROR_HTTP_STATUS = {
  invalid_json: 400,
  invalid_envelope: 400,
  message_too_large: 413,
  identity_mismatch: 403,
  reserved_kind: 403,
  capability_violation: 403,
  grant_exceeds_own_capabilities: 403,
  participant_paused: 409,
  participant_shutdown: 409,
  rate_limited: 429,
  unknown_participant: 404,
  unknown_grant: 404,
  unknown_stream: 404,
  unauthorized_stream_write: 403,
  already_exists: 409,
  not_proposer: 403,
  invalid_token: 401,
  origin_not_allowed: 403,
  unknown_space: 404,
  join_timeout: 408,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  invalid_cursor: 400,
  invalid_rule: 400,
  unknown_rule: 404,
  no_rule_supervisor: 409,
  invalid_budget: 400,
  invalid_request: 400,
  invalid_subscription: 400,
  unknown_subscription: 404,
  invalid_webhook: 400,
  unknown_webhook: 404,
  invalid_action_token: 401,
  action_token_expired: 410,
  action_token_used: 409,
  unknown_proposal: 404,
  unknown_tool: 404,
  unknown_mcp_session: 404,
  ambiguous_mcp_session: 409,
  proposal_not_pending: 409,
  proposal_changed: 409,
  confirmation_required: 409,
  request_too_large: 431,
  space_unavailable: 503,
  oauth_failed: 502,
  internal_error: 500,
} as const satisfies Record<ErrorCode, number>;

/**
 * WebSocket close codes the gateway uses. Application codes (4000–4999) mirror the HTTP status of the same
 * meaning (4401 ≈ 401) so logs read naturally; 1xxx are the RFC 6455 codes.
 * Close reasons are short human text (≤123 bytes) and never contain tokens.
 */
export const CLOSE_CODES = {
  /** RFC 6455: normal closure (the participant left, or a stream-free clean shutdown). */
  normal: 1000,
  /** RFC 6455: the gateway is shutting down or the space was removed. */
  going_away: 1001,
  /** RFC 6455: the connection ended without a close frame; recorded (a cluster node that stopped), never sent. */
  abnormal: 1006,
  /** RFC 6455: a frame over the size limit (large envelopes on an open socket get `system/error` instead when possible). */
  message_too_big: 1009,
  /** RFC 6455: unexpected gateway failure. */
  internal_error: 1011,
  /** The token was missing, unknown or revoked after the socket opened (a first-frame join). */
  unauthorized: 4401,
  /** The participant was removed with `space/kick`; its tokens are revoked, so reconnecting fails. */
  kicked: 4403,
  /** A first-frame join named a space that does not exist. */
  unknown_space: 4404,
  /** No valid token or join frame within the join deadline (DESIGN: 5 s). Distinct from 4401 so clients need not retry with the same token. */
  join_timeout: 4408,
  /** A newer connection of the same participant replaced this one; do not auto-reconnect against it. */
  replaced: 4409,
  /** The socket's buffered output passed its cap: the consumer cannot keep up, so it is dropped rather than grow memory. */
  slow_consumer: 4429,
} as const;

export type CloseCodeName = keyof typeof CLOSE_CODES;
export type CloseCode = (typeof CLOSE_CODES)[CloseCodeName];
