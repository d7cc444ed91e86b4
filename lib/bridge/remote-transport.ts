import { STATUS_CODES } from 'node:http';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RemoteTransportName } from './bridge-defaults';

/**
 * What a remote transport is made with, the same for both kinds. The one place the bridge's HTTP requests get their
 * credentials: today the configured headers; an OAuth client provider (the SDK's `authProvider` option of both
 * transports) belongs here too.
 */
export interface RemoteTransportOptions {
  /** Sent with every request, the SSE stream's included. */
  headers: Record<string, string>;
}

/**
 * A new SDK client transport to `url`, of the given kind: `StreamableHTTPClientTransport`, or the legacy
 * `SSEClientTransport` (deprecated by the SDK, kept for servers that have not moved). One per session.
 *
 * @example
 * await client.connect(remoteTransport('streamable-http', new URL('https://mcp.example.com/mcp'), { headers: {} }));
 */
export function remoteTransport(kind: RemoteTransportName, url: URL, { headers }: RemoteTransportOptions): Transport {
  // Both transports merge `requestInit.headers` into every request they make, SSE's GET stream included.
  const requestInit: RequestInit = { headers };
  return kind === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
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
