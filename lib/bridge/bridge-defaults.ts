/** How long a started MCP server has to answer `initialize` before it is killed and started again. */
export const INITIALIZE_TIMEOUT_MS = 10_000;

/** How long a forwarded request may take before the caller gets a timeout error (MCP SDK's own default). */
export const FORWARD_TIMEOUT_MS = 60_000;

/** Pages of `tools/list` read at most, so a server that keeps handing out cursors cannot keep the bridge busy. */
export const TOOLS_LIST_MAX_PAGES = 50;

/** The MGP version the bridge speaks (`capabilities.mgp.version` of `initialize`, mgp-0.5.2 §2.2). */
export const MGP_VERSION = '0.5.2';

/** MGP extensions the bridge understands: tool security metadata and structured errors (mgp-0.5.2 §2.2). */
export const MGP_EXTENSIONS = ['security', 'error_handling'] as const;

/** MGP error codes the bridge answers with while the server is not there to answer (mgp-0.5.2 §14.3). */
export const MGP_ERROR_CODES = {
  serverNotReady: 2000,
  serverRestarting: 2002,
} as const;

/** How long a server that reported a transport error has to answer a `ping` before its session counts as lost. */
export const PROBE_TIMEOUT_MS = 5_000;

/**
 * How often an idle remote server is pinged (MCP: implementations SHOULD ping to detect connection health): one that
 * went away behind a proxy drops no connection, so only asking tells. A stdio server's exit says it went.
 */
export const REMOTE_PING_INTERVAL_MS = 30_000;

/**
 * The transports a remote MCP server may be reached by: Streamable HTTP (MCP 2025-03-26 and later), and the legacy
 * HTTP+SSE transport (MCP 2024-11-05). Without a choice the bridge tries them in this order.
 */
export const REMOTE_TRANSPORTS = ['streamable-http', 'sse'] as const;
export type RemoteTransportName = (typeof REMOTE_TRANSPORTS)[number];
