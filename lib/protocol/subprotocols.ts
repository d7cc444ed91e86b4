/** Subprotocol offered on every connection; the gateway echoes it (browsers fail a handshake that echoes none). */
export const MEW_SUBPROTOCOL = 'mew.v0.4';

/** Subprotocol prefix that carries the bearer token for browsers, which cannot set an Authorization header. */
export const BEARER_SUBPROTOCOL_PREFIX = 'mew.bearer.';

/** Upgrade query parameter (`?exclusive=1`): this connection replaces every other of the same participant. */
export const EXCLUSIVE_PARAM = 'exclusive';

/**
 * Upgrade query parameter (`?coalesce=<ms>`, empty for the default window): this connection receives routine
 * envelopes and stream frames batched, one JSON-array frame per window, and urgent ones at once (see `isRoutineFor`).
 */
export const COALESCE_PARAM = 'coalesce';
