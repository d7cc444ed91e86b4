/**
 * JSON-RPC error codes MEW's MCP participants and the space's MCP endpoint answer with: JSON-RPC 2.0's own (§5.1),
 * MCP's, the one the MCP SDK's Streamable HTTP transport gives an unknown or ended session, and LSP's for a
 * cancelled request.
 */
export const JSONRPC_ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP: `resources/read` of a URI nobody registered. */
  resourceNotFound: -32002,
  /** Streamable HTTP: no live session has the `Mcp-Session-Id` (HTTP 404; the client starts a new one). */
  sessionNotFound: -32001,
  /** Ends the HTTP answer of a request its client cancelled (the server sends no response to it). */
  requestCancelled: -32800,
} as const;
