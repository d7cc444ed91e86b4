import { z } from 'zod';
import { toolRisk, type ToolRisk } from './tool-risk';

/** One tool of a `tools/list` result, as every reader (SDK discovery, the control room) sees it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** Its risk, read by `toolRisk`. */
  security?: ToolRisk;
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
  annotations: z.unknown().optional(),
  security: z.unknown().optional(),
});

/**
 * Reads a `tools/list` result: every entry with a name, with its risk read by the one tool-risk function (`toolRisk`).
 * Undefined when the result has no `tools` array at all.
 *
 * @example
 * parseToolsListResult({ tools: [{ name: 'rm', annotations: { destructiveHint: true } }] });
 * // [{ name: 'rm', security: { risk_level: 'dangerous', confirmation_required: true, derived_from: 'mcp-annotations', source: 'mcp-hints' } }]
 */
export function parseToolsListResult(result: unknown): ListedTool[] | undefined {
  const parsed = toolsListResultSchema.safeParse(result);
  if (!parsed.success) return undefined;
  const tools: ListedTool[] = [];
  for (const entry of parsed.data.tools) {
    const tool = listedToolSchema.safeParse(entry);
    if (!tool.success) continue;
    const { name, description, inputSchema } = tool.data;
    const security = toolRisk(tool.data);
    tools.push({ name, ...(description !== undefined && { description }), ...(inputSchema !== undefined && { inputSchema }), ...(security && { security }) });
  }
  return tools;
}
