import { STATUS_CODES } from 'node:http';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RemoteTransportName } from './bridge-defaults';

/**
 * What a remote transport is made with, the same for both kinds. The one place the bridge's HTTP requests get their
 * credentials: the configured headers, and the OAuth access token the space's server holds for this bridge.
 */
export interface RemoteTransportOptions {
  /** Sent with every request, the SSE stream's included. */
  headers: Record<string, string>;
  /** Where an OAuth access token comes from, when the server answers 401 with a Bearer challenge (`authorizingFetch`). */
  oauth?: BearerTokenSource;
}

/**
 * Where a bridge gets the OAuth access token for a remote MCP server: from the space's server, which ran the
 * authorization (an operator's Connect), keeps the tokens and refreshes them (`lib/mcp-oauth`). The bridge never holds
 * a refresh token or client secret, and runs no OAuth flow itself.
 */
export interface BearerTokenSource {
  /** The access token to send now, if one is known (renewed by the server before it expires). */
  token(): Promise<string | undefined>;
  /** The server refused `token` (or asked for one, when undefined): a fresh token, or undefined when there is none to be had. */
  refused(token: string | undefined): Promise<string | undefined>;
  /**
   * Why the last ask got no token: `required` when only an operator's authorization will do (nothing to retry until
   * then), else a reason that may pass (the authorization server did not answer a refresh).
   */
  readonly shortfall?: { required: boolean; reason: string };
  /** Takes the tokens it handed out out of a text (an error a server answered with may echo what it was sent). */
  redact?(text: string): string;
}

/** How the bridge tells that a remote server wants an OAuth access token: a 401 whose `WWW-Authenticate` is a Bearer challenge. */
const BEARER_CHALLENGE = /^\s*bearer\b/i;

/**
 * `fetch` for the SDK's transports that carries the OAuth access token of `source` to the MCP server's own origin
 * (never elsewhere): the token known, if any, on every request; on a 401 with a Bearer challenge it asks for a fresh
 * one (the server refreshes a refused token) and sends the request once more with it. Without one, the 401 goes back
 * to the transport as it came, and `source.shortfall` says why. A request body the SDK sends is a string, so it can be
 * sent twice.
 *
 * The SDK's own `authProvider` option is not used: given one, the transports run the whole OAuth flow themselves on a
 * 401 (discovery, registration, PKCE, refresh), which needs the refresh token and client secret in the bridge and a
 * browser it does not have. Here the space's server is the OAuth client, and the bridge only carries its token.
 */
export function authorizingFetch(source: BearerTokenSource, origin: string, base: FetchLike = fetch): FetchLike {
  const withToken = (init: RequestInit | undefined, token: string | undefined): RequestInit | undefined => {
    if (token === undefined) return init;
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return { ...init, headers };
  };
  return async (url, init) => {
    if (new URL(url).origin !== origin) return base(url, init);
    const sent = await source.token();
    const response = await base(url, withToken(init, sent));
    if (response.status !== 401 || !BEARER_CHALLENGE.test(response.headers.get('www-authenticate') ?? '')) return response;
    const fresh = await source.refused(sent);
    if (fresh === undefined || fresh === sent) return response;
    await response.body?.cancel().catch(() => undefined);
    return base(url, withToken(init, fresh));
  };
}

/**
 * A new SDK client transport to `url`, of the given kind: `StreamableHTTPClientTransport`, or the legacy
 * `SSEClientTransport` (deprecated by the SDK, kept for servers that have not moved). One per session.
 *
 * @example
 * await client.connect(remoteTransport('streamable-http', new URL('https://mcp.example.com/mcp'), { headers: {} }));
 */
export function remoteTransport(kind: RemoteTransportName, url: URL, { headers, oauth }: RemoteTransportOptions): Transport {
  // Both transports merge `requestInit.headers` into every request they make, SSE's GET stream included.
  const requestInit: RequestInit = { headers };
  const options = { requestInit, ...(oauth && { fetch: authorizingFetch(oauth, url.origin) }) };
  return kind === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
}

/** The HTTP status an SDK transport error carries, if any. */
export function httpStatusOf(error: unknown): number | undefined {
  const code = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  return code !== undefined && code >= 100 ? code : undefined;
}

/**
 * Whether a transport's failure to initialise means "try the other one", as the MCP spec's backwards compatibility
 * section and the SDK's fallback example say for Streamable HTTP: the server answered with a 4xx (typically 404 or
 * 405), so it does not serve that transport there. Not for 401 and 403: the credentials were refused, and the other
 * transport with the same ones would only hide that.
 */
export function triesTheOtherTransport(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

/**
 * An SDK transport's error in words an operator can act on: the HTTP status and its meaning (a 401 points at the
 * headers), or why the server could not be reached (`connect ECONNREFUSED 127.0.0.1:8931`), else the SDK's message.
 */
export function describeRemoteError(error: unknown): string {
  const status = httpStatusOf(error);
  if (status !== undefined) {
    const phrase = `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim();
    if (status === 401 || status === 403) return `${phrase}: the server refused the credentials (check the bridge's headers)`;
    return phrase;
  }
  return networkCause(error) ?? (error instanceof Error ? error.message : String(error));
}

/**
 * The network failure under a `fetch failed` (ECONNREFUSED, ENOTFOUND…: the server cannot be reached), however deep
 * the SDK wrapped it; `fetch failed: <why>` for a connection that broke otherwise (`other side closed`).
 */
function networkCause(error: unknown): string | undefined {
  const chain: Error[] = [];
  for (let at: unknown = error; at instanceof Error && chain.length < 5; at = at.cause) chain.push(at);
  const refused = chain.find((at) => /^E[A-Z]+$/.test(String((at as { code?: unknown }).code)));
  if (refused) return `unreachable (${refused.message})`;
  const failed = chain.findIndex((at) => at.message === 'fetch failed');
  if (failed >= 0) return chain.length > failed + 1 ? `fetch failed: ${chain[chain.length - 1].message}` : 'fetch failed';
  // SseError keeps the stream's error event (whose message names the failure), not its cause.
  const named = error instanceof SseError ? /\b((?:connect|getaddrinfo) E[A-Z]+\b.*)$/.exec(error.message) : null;
  return named ? `unreachable (${named[1]})` : undefined;
}
