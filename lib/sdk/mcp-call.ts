import type { McpRequestPayload } from '../protocol';

/** What `mcpRequest` and a fulfilment send: an MCP method and its params; `jsonrpc` and `id` are filled in. */
export type McpCall = Pick<McpRequestPayload, 'method' | 'params'> & Partial<McpRequestPayload>;
