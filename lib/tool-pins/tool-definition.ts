import { createHash } from 'node:crypto';
import { canonicalJson } from '../gateway/audit/canonical-json';
import type { PinnedToolDefinition } from '../protocol';

/** What of a tool is pinned: everything that tells an agent or an approver what it does (the API's wire type). */
export type ToolDefinition = PinnedToolDefinition;

/** A tool as a `tools/list` answer lists it, reduced to its definition, and its SHA-256 over canonical JSON. */
export function toolDefinitionOf(tool: Record<string, unknown>): { definition: ToolDefinition; hash: string } | undefined {
  if (typeof tool.name !== 'string' || tool.name.length === 0) return undefined;
  const definition: ToolDefinition = { name: tool.name };
  for (const field of ['description', 'inputSchema', 'annotations', 'security'] as const) if (tool[field] !== undefined) definition[field] = tool[field];
  // Canonical JSON (sorted keys, RFC 8785 for parsed JSON): a server that reorders its keys has not changed its tool.
  return { definition, hash: createHash('sha256').update(canonicalJson(definition)).digest('hex') };
}
