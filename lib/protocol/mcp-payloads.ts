import { z } from 'zod';

// MCP payloads are standard MCP/JSON-RPC bodies (spec §3.1: "The MCP payload structure remains unchanged").
// Only what MEW itself relies on is checked; everything else passes through untouched.

const jsonRpcVersion = z.literal('2.0', { error: 'jsonrpc must be "2.0"' });
const jsonRpcId = z.union([z.string(), z.number()], { error: 'expected a JSON-RPC id (string or number)' });
// A typeof check rather than z.looseObject: params can be large and are never read here, so don't copy them.
const jsonRpcParams = z.custom<Record<string, unknown> | unknown[]>(
  (value) => typeof value === 'object' && value !== null,
  'params must be an object or an array',
);

/**
 * `mcp/request` (spec §3.1.1): an MCP request, or a notification (`notifications/*` without an `id`, see
 * `isMcpNotification`). Other requests without `id` or `jsonrpc` are requests all the same (the reference
 * implementation sends `{"method": "tools/list"}`): the envelope's id is a request's identity, which the response's
 * `correlation_id` names.
 */
export const mcpRequestPayloadSchema = z.looseObject({
  /** JSON-RPC version; MEW proposals, and the reference implementation's requests, often omit it. */
  jsonrpc: jsonRpcVersion.optional(),
  /** JSON-RPC request id, echoed in the response when given; absent for notifications and for many MEW requests. */
  id: jsonRpcId.optional(),
  /** The MCP method, e.g. `tools/call`, `resources/read` (spec §3.1: "The specific method is in `payload.method`"). */
  method: z.string().min(1),
  /** Method parameters: an object (MCP) or an array (plain JSON-RPC). */
  params: jsonRpcParams.optional(),
});

/**
 * Whether an `mcp/request` payload is an MCP notification, which nobody answers: a `notifications/*` method (MCP's
 * only notifications) without a JSON-RPC `id`. Any other method is a request, answered with an `mcp/response`
 * correlated to the envelope, with or without an `id`.
 */
export function isMcpNotification(payload: { id?: unknown; method: string }): boolean {
  return payload.id === undefined && payload.method.startsWith('notifications/');
}

/**
 * `mcp/proposal` (spec §3.2): "Proposals have the same payload structure as requests".
 * A participant with the capability fulfils it with an `mcp/request` whose `correlation_id` names the proposal.
 */
export const mcpProposalPayloadSchema = mcpRequestPayloadSchema;

/** JSON-RPC error object of a failed MCP response. */
export const mcpErrorSchema = z.looseObject({
  /** JSON-RPC error code, e.g. -32601 method not found. */
  code: z.number(),
  /** Short human description. */
  message: z.string(),
  /** Optional extra detail. */
  data: z.unknown().optional(),
});

/**
 * `mcp/response` (spec §3.1.2): an MCP result or error. The envelope's `correlation_id` MUST reference the
 * originating `mcp/request`.
 */
export const mcpResponsePayloadSchema = z
  .looseObject({
    /** JSON-RPC version. */
    jsonrpc: jsonRpcVersion.optional(),
    /** Echoes the request's JSON-RPC id; `null` when the request's id could not be read (JSON-RPC 2.0 §5). */
    id: z.union([z.string(), z.number(), z.null()], { error: 'expected a JSON-RPC id (string, number or null)' }).optional(),
    /** The method's result on success. */
    result: z.unknown().optional(),
    /** The error on failure. */
    error: mcpErrorSchema.optional(),
  })
  .refine((p) => p.result !== undefined || p.error !== undefined, {
    message: 'an MCP response needs "result" or "error"',
  });

/**
 * Reason for `mcp/withdraw` / `mcp/reject` (spec §3.3.3). Suggested codes: `disagree`, `inappropriate`, `unsafe`,
 * `busy`, `incapable`, `policy`, `duplicate`, `invalid`, `timeout`, `resource_limit`, `no_longer_needed`, `other`;
 * participants MAY use others and MUST handle unknown codes gracefully.
 */
const lifecycleReason = z.string();

/** `mcp/withdraw` (spec §3.3.1): only the proposer withdraws; `correlation_id` MUST reference the proposal. */
export const mcpWithdrawPayloadSchema = z.looseObject({
  /** Why the proposal is withdrawn, e.g. `no_longer_needed`. */
  reason: lifecycleReason.optional(),
});

/** `mcp/reject` (spec §3.3.2): early feedback to the proposer; `correlation_id` MUST reference the proposal. */
export const mcpRejectPayloadSchema = z.looseObject({
  /** Why the proposal is rejected, e.g. `unsafe`, `policy`. */
  reason: lifecycleReason.optional(),
});

export type McpRequestPayload = z.infer<typeof mcpRequestPayloadSchema>;
export type McpProposalPayload = z.infer<typeof mcpProposalPayloadSchema>;
export type McpError = z.infer<typeof mcpErrorSchema>;
export type McpResponsePayload = z.infer<typeof mcpResponsePayloadSchema>;
export type McpWithdrawPayload = z.infer<typeof mcpWithdrawPayloadSchema>;
export type McpRejectPayload = z.infer<typeof mcpRejectPayloadSchema>;
