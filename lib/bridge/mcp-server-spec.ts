import type { RemoteTransportName } from './bridge-defaults';
import type { BearerTokenSource } from './remote-transport';

/** How to start an MCP server that speaks stdio. */
export interface StdioServerSpec {
  command: string;
  args: readonly string[];
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** @default the current directory */
  cwd?: string;
}

/** Where to reach a remote MCP server, over Streamable HTTP or the legacy HTTP+SSE transport. */
export interface RemoteServerSpec {
  /** The server's MCP endpoint, e.g. `https://mcp.example.com/mcp` (or `…/sse` for a legacy server). */
  url: string;
  /** Sent with every request (e.g. `Authorization`). Their values are secrets: never logged, never reported. */
  headers?: Record<string, string>;
  /** @default Streamable HTTP, falling back to SSE when the server refuses it with a 4xx */
  transport?: RemoteTransportName;
  /** Where an OAuth access token comes from when the server asks for one (a 401 with a Bearer challenge): the space's server. */
  oauth?: BearerTokenSource;
}

/** The MCP server a bridge serves: a command it starts, or a URL it connects to. */
export type McpServerSpec = StdioServerSpec | RemoteServerSpec;

export function isRemoteServer(spec: McpServerSpec): spec is RemoteServerSpec {
  return 'url' in spec;
}

/**
 * A URL as it may be shown (logs, status, `ps`): scheme, host and path, without credentials, query or fragment,
 * where secrets are sometimes put.
 *
 * @example
 * displayUrl('https://user:pw@mcp.example.com/mcp?key=s3cret'); // 'https://mcp.example.com/mcp'
 */
export function displayUrl(url: string | URL): string {
  try {
    const { origin, pathname } = new URL(url);
    return `${origin}${pathname}`;
  } catch {
    return '(not a URL)';
  }
}
