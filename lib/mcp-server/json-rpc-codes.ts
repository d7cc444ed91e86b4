/**
 * The JSON-RPC error codes the endpoint answers with: JSON-RPC 2.0's own, the one the SDK's Streamable HTTP transport
 * gives an unknown or ended session, and LSP's for a cancelled request.
 */
export const JSON_RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  sessionNotFound: -32001,
  requestCancelled: -32800,
} as const;
