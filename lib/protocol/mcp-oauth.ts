// OAuth for remote MCP servers a space's bridges reach (`lib/mcp-oauth`): the server runs the authorization and keeps
// the tokens; these are what its endpoints answer. No secret (token, client secret, PKCE verifier) is ever in one,
// except the access token `POST /api/spaces/{space}/oauth/token` hands the bridge participant itself.

/**
 * Where a launched remote bridge's OAuth stands:
 * - `connected`: the server holds an access token for it (refreshed when it expires, when a refresh token came with it);
 * - `authorization_required`: the bridge found the MCP server wants a token the server does not have (it answered
 *   401 with a Bearer challenge): an operator connects it (`POST …/oauth/connect`);
 * - `authorizing`: an operator started an authorization whose answer has not come back yet;
 * - `not_connected`: nothing is known (the server may need no authorization at all).
 */
export type McpOAuthState = 'connected' | 'authorization_required' | 'authorizing' | 'not_connected';

/** A launched remote bridge's OAuth, as `GET /api/spaces/{space}/oauth` lists it and its routes answer it. */
export interface McpOAuthReport {
  participant: string;
  /** The remote MCP server, as it may be shown (scheme, host and path: no credentials, no query). */
  server: string;
  state: McpOAuthState;
  /** The scopes granted, when the authorization server said. */
  scopes?: string[];
  /** When the access token expires (ISO 8601), when the authorization server said. */
  expires_at?: string;
  /** Whether a refresh token was issued, so the token is renewed without an operator. */
  refreshable?: boolean;
  connected_at?: string;
  /** The operator who authorized it (`admin` for the admin token). */
  connected_by?: string;
  /** While `authorizing`: until when the authorization link works (ISO 8601). */
  authorization_expires_at?: string;
  /** Why the last authorization, refresh or code exchange failed. */
  last_error?: string;
}

/** The body of `GET /api/spaces/{space}/oauth`: every remote bridge the server launches without an `Authorization` header of its own. */
export interface McpOAuthList {
  connections: McpOAuthReport[];
}

/** The answer of `POST /api/spaces/{space}/processes/{participant}/oauth/connect`: where to send the operator's browser. */
export interface McpOAuthConnectAnswer {
  /** The authorization server's page (authorization code with PKCE); it redirects back to the server's callback. */
  authorization_url: string;
  /** Until when its answer is accepted (ISO 8601). */
  expires_at: string;
}

/**
 * The answer of `POST /api/spaces/{space}/oauth/token` to a bridge participant asking for its own access token
 * (body `{refused?: <SHA-256 hex of the token the MCP server refused>}`, which makes the server refresh it):
 * `authorized` with the token; `authorization_required` when only an operator's Connect will do; `unavailable` when
 * the token could not be had just now (the authorization server did not answer a refresh), worth asking again later.
 */
export type McpOAuthTokenAnswer =
  | { status: 'authorized'; access_token: string; token_type: string; expires_at?: string }
  | { status: 'authorization_required'; message: string }
  | { status: 'unavailable'; message: string };
