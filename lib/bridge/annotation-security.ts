import type { ToolSecurity } from '../protocol';

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
 * securityFromAnnotations({ readOnlyHint: false, destructiveHint: true }); // { risk_level: 'dangerous', confirmation_required: true }
 */
export function securityFromAnnotations(annotations: ToolAnnotations | undefined): ToolSecurity {
  const openWorld = annotations?.openWorldHint === true ? { side_effects: ['network'] } : {};
  if (annotations?.readOnlyHint === true) return { risk_level: 'safe', ...openWorld };
  if (annotations?.destructiveHint === true) return { risk_level: 'dangerous', confirmation_required: true, ...openWorld };
  return { risk_level: 'moderate', ...openWorld };
}
