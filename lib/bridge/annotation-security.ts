import { DERIVED_FROM_ANNOTATIONS, type ToolSecurity } from '../protocol';

/** MCP's tool annotations (2025-03-26 and later); every hint is optional and only a hint. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * MGP risk metadata (mgp-0.5.2 §4.3) for a tool that declares only MCP annotations: read-only → `safe`;
 * destructive → `dangerous` with confirmation; anything else → `moderate` (it may write, and does not say it
 * destroys). `openWorldHint` becomes the `network` side effect, so approvers
 * see that the tool reaches outside the server.
 *
 * @example
 * securityFromAnnotations({ readOnlyHint: false, destructiveHint: true });
 * // { risk_level: 'dangerous', confirmation_required: true, derived_from: 'mcp-annotations' }
 */
export function securityFromAnnotations(annotations: ToolAnnotations | undefined): ToolSecurity {
  // Marked as derived, so approvers can tell the bridge's reading from a server's own MGP declaration.
  const extra = { ...(annotations?.openWorldHint === true && { side_effects: ['network'] }), derived_from: DERIVED_FROM_ANNOTATIONS };
  if (annotations?.readOnlyHint === true) return { risk_level: 'safe', ...extra };
  if (annotations?.destructiveHint === true) return { risk_level: 'dangerous', confirmation_required: true, ...extra };
  return { risk_level: 'moderate', ...extra };
}
