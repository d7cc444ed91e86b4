/** How long an operator's authorization link stays good: its `state` is refused after that (connect again). */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

/** An access token this close to its expiry is renewed before it is used (by the server, with the refresh token). */
export const TOKEN_RENEW_MARGIN_MS = 60_000;

/** How long one HTTP request to a remote server's authorization endpoints may take (discovery, registration, token). */
export const OAUTH_HTTP_TIMEOUT_MS = 15_000;

/** Characters of an authorization server's error kept for an operator to read (its answers can be long pages). */
export const ERROR_TEXT_LIMIT = 300;
