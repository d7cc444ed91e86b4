import { z } from 'zod';

// The one reading of a tool's risk, shared by everyone who derives it: the MCP bridge (what it declares to the
// space), the SDK's discovery and space model (so the rule supervisor, notifications and the control room's cards),
// and the rule engine's "dangerous" test. Isomorphic: zod only.

/**
 * MGP tool security metadata (mgp-0.5.2 §4.3), as a tool declares it in `tools/list`: approvers see it on every
 * proposal for the tool. `risk_level` is `safe`, `moderate` or `dangerous`; other strings are kept as given.
 */
export const toolSecuritySchema = z.looseObject({
  risk_level: z.string().optional(),
  confirmation_required: z.boolean().optional(),
  side_effects: z.array(z.string()).optional(),
});

export type ToolSecurity = z.infer<typeof toolSecuritySchema>;

/**
 * `security.derived_from` of MGP metadata read off a tool's MCP annotations rather than declared by its server:
 * shown to approvers as such.
 */
export const DERIVED_FROM_ANNOTATIONS = 'mcp-annotations';

/** Where a tool's security was read: MGP `security`, MGP fields inside `annotations`, or MCP's hints (`destructiveHint`…). */
export type ToolSecuritySource = 'security' | 'annotations' | 'mcp-hints';

/** A tool's risk as every reader sees it: the MGP metadata, and where it was read. */
export type ToolRisk = ToolSecurity & { source: ToolSecuritySource };

/** MCP's tool annotations (2025-03-26 and later); every hint is optional and only a hint. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

const MCP_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * MGP risk metadata (mgp-0.5.2 §4.3) for a tool that declares only MCP annotations: read-only → `safe` (a tool
 * that changes nothing destroys nothing, whatever else it says); destructive → `dangerous` with confirmation;
 * any other hint → `moderate` (it may write, and does not say it destroys). `openWorldHint` becomes the `network`
 * side effect, so approvers see that the tool reaches outside its server. Undefined when the annotations carry
 * none of MCP's hints (a `title` alone says nothing about risk).
 *
 * @example
 * securityFromAnnotations({ readOnlyHint: false, destructiveHint: true });
 * // { risk_level: 'dangerous', confirmation_required: true, derived_from: 'mcp-annotations' }
 */
export function securityFromAnnotations(annotations: unknown): ToolSecurity | undefined {
  if (!isObject(annotations) || !MCP_HINTS.some((hint) => typeof annotations[hint] === 'boolean')) return undefined;
  // Marked as derived, so approvers can tell this reading from a server's own MGP declaration.
  const extra = { ...(annotations.openWorldHint === true && { side_effects: ['network'] }), derived_from: DERIVED_FROM_ANNOTATIONS };
  if (annotations.readOnlyHint === true) return { risk_level: 'safe', ...extra };
  if (annotations.destructiveHint === true) return { risk_level: 'dangerous', confirmation_required: true, ...extra };
  return { risk_level: 'moderate', ...extra };
}

/** MGP fields (`risk_level`, `confirmation_required`, `side_effects`) in `value`, if it declares any. */
function mgpDeclared(value: unknown, source: 'security' | 'annotations'): ToolRisk | undefined {
  const parsed = toolSecuritySchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { risk_level, confirmation_required, side_effects } = parsed.data;
  if (risk_level === undefined && confirmation_required === undefined && side_effects === undefined) return undefined;
  // MGP's own block keeps every field it declares (e.g. `reversible`); annotations hold unrelated MCP fields too.
  const known = {
    ...(risk_level !== undefined && { risk_level }),
    ...(confirmation_required !== undefined && { confirmation_required }),
    ...(side_effects !== undefined && { side_effects }),
  };
  return { ...(source === 'security' ? parsed.data : known), source };
}

/**
 * The one tool-risk function: a tool's MGP `security` when it declares one (or MGP fields inside `annotations`),
 * else the MCP annotation mapping (`securityFromAnnotations`), else undefined: undeclared, which each reader treats
 * as the worst case where it matters (the supervisor's rules never approve it unless they allow dangerous tools;
 * notifications send it to the control room).
 *
 * @example
 * toolRisk({ name: 'peek', annotations: { readOnlyHint: true } });
 * // { risk_level: 'safe', derived_from: 'mcp-annotations', source: 'mcp-hints' }
 */
export function toolRisk(tool: { security?: unknown; annotations?: unknown }): ToolRisk | undefined {
  const declared = mgpDeclared(tool.security, 'security') ?? mgpDeclared(tool.annotations, 'annotations');
  if (declared) return declared;
  const derived = securityFromAnnotations(tool.annotations);
  return derived && { ...derived, source: 'mcp-hints' };
}

/**
 * Whether a tool's risk keeps it from being approved without a person's deliberate look: `dangerous`, or
 * confirm-first. (Undeclared risk is each reader's call: pass `undeclared` for what it counts as.)
 */
export function isDangerousRisk(risk: Pick<ToolSecurity, 'risk_level' | 'confirmation_required'> | undefined, undeclared = false): boolean {
  if (risk === undefined || (risk.risk_level === undefined && risk.confirmation_required !== true)) return undeclared;
  return risk.risk_level === 'dangerous' || risk.confirmation_required === true;
}
