/** Subprotocol offered on every connection; the gateway echoes it (browsers fail a handshake that echoes none). */
export const MEW_SUBPROTOCOL = 'mew.v0.4';

/**
 * Offered first by the SDK, so that a server which just echoes the first offer (ws's default, as in the reference
 * gateway) selects it and thereby says it did not read MEW's handshake (the SDK then sends a join frame); this
 * gateway selects `MEW_SUBPROTOCOL` over it.
 */
export const JOIN_FRAME_SUBPROTOCOL = 'mew.join-frame';

/** Subprotocol prefix that carries the bearer token for browsers, which cannot set an Authorization header. */
export const BEARER_SUBPROTOCOL_PREFIX = 'mew.bearer.';

/** Upgrade query parameter (`?exclusive=1`): this connection replaces every other of the same participant. */
export const EXCLUSIVE_PARAM = 'exclusive';

/**
 * Upgrade query parameter (`?coalesce=<ms>`, empty for the default window): this connection receives routine
 * envelopes and stream frames batched, one JSON-array frame per window, and urgent ones at once (see `isRoutineFor`).
 */
export const COALESCE_PARAM = 'coalesce';
