import { z } from 'zod';

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
 * `security.derived_from` of MGP metadata that a bridge read off a tool's MCP annotations rather than the server
 * declaring it: shown to approvers as such.
 */
export const DERIVED_FROM_ANNOTATIONS = 'mcp-annotations';

/** Where a tool's security was read: MGP `security`, MGP fields inside `annotations`, or MCP's hints (`destructiveHint`…). */
export type ToolSecuritySource = 'security' | 'annotations' | 'mcp-hints';

/** One tool of a `tools/list` result, as every reader (SDK discovery, the control room) sees it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  security?: ToolSecurity & { source: ToolSecuritySource };
}

/** The MCP `tools/list` result: tools whose fields are read defensively, since others' servers vary. */
export const toolsListResultSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

const listedToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  annotations: z.looseObject({ destructiveHint: z.unknown().optional(), readOnlyHint: z.unknown().optional() }).optional().catch(undefined),
  security: z.unknown().optional(),
});

/**
 * Reads a `tools/list` result: every entry with a name, with its security resolved (see `resolveToolSecurity`).
 * Undefined when the result has no `tools` array at all.
 *
 * @example
 * parseToolsListResult({ tools: [{ name: 'rm', annotations: { destructiveHint: true } }] });
 * // [{ name: 'rm', security: { risk_level: 'dangerous', source: 'mcp-hints' } }]
 */
export function parseToolsListResult(result: unknown): ListedTool[] | undefined {
  const parsed = toolsListResultSchema.safeParse(result);
  if (!parsed.success) return undefined;
  const tools: ListedTool[] = [];
  for (const entry of parsed.data.tools) {
    const tool = listedToolSchema.safeParse(entry);
    if (!tool.success) continue;
    const { name, description, inputSchema } = tool.data;
    const security = resolveToolSecurity(tool.data);
    tools.push({ name, ...(description !== undefined && { description }), ...(inputSchema !== undefined && { inputSchema }), ...(security && { security }) });
  }
  return tools;
}

/**
 * A tool's security: MGP `security`, else MGP fields in `annotations`, else MCP hints (`destructiveHint: true` →
 * dangerous, `readOnlyHint: true` → safe). Undefined when none says anything.
 */
export function resolveToolSecurity(tool: { security?: unknown; annotations?: unknown }): ListedTool['security'] {
  const declared = (value: unknown, source: ToolSecuritySource) => {
    const parsed = toolSecuritySchema.safeParse(value);
    if (!parsed.success) return undefined;
    const { risk_level, confirmation_required, side_effects } = parsed.data;
    if (risk_level === undefined && confirmation_required === undefined && side_effects === undefined) return undefined;
    // MGP's own block keeps every field it declares (e.g. `reversible`); annotations hold unrelated MCP fields too.
    const known = { ...(risk_level !== undefined && { risk_level }), ...(confirmation_required !== undefined && { confirmation_required }), ...(side_effects !== undefined && { side_effects }) };
    return { ...(source === 'security' ? parsed.data : known), source };
  };
  const found = declared(tool.security, 'security') ?? declared(tool.annotations, 'annotations');
  if (found) return found;
  const hints = tool.annotations as { destructiveHint?: unknown; readOnlyHint?: unknown } | undefined;
  if (hints?.destructiveHint === true) return { risk_level: 'dangerous', source: 'mcp-hints' };
  if (hints?.readOnlyHint === true) return { risk_level: 'safe', source: 'mcp-hints' };
  return undefined;
}
