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

/** What `ToolsListAnswers` reads of an envelope. */
interface ListingEnvelope {
  kind: string;
  id: string;
  correlation_id?: readonly string[];
  payload?: unknown;
}

/**
 * Which `mcp/response`s answer a `tools/list`, for whoever watches the listings routed in a space (pinned tool
 * definitions, the gateway's own index of tool risk): it remembers the ids of `tools/list` requests it is fed, in a
 * map the caller bounds (a `BoundedMap`), and recognises a response correlated to one, once. The listing is the
 * responder's: whoever answers lists its own tools, so a forged answer can only describe the forger's.
 *
 * @example
 * const answers = new ToolsListAnswers(new BoundedMap(10_000));
 * for (const envelope of routed) {
 *   const tools = answers.answer(envelope); // the raw `result.tools` of a response to a tools/list, else undefined
 *   if (tools) index(envelope.from, tools);
 * }
 */
export class ToolsListAnswers {
  constructor(private readonly requests: Map<string, true>) {}

  /**
   * Feeds one routed envelope: a `tools/list` request is remembered; a response to a remembered one gives its
   * `result.tools` entries as sent (unread: each caller reads what it needs). Anything else gives undefined.
   */
  answer(envelope: ListingEnvelope): unknown[] | undefined {
    const payload = envelope.payload as { method?: unknown; result?: { tools?: unknown } } | undefined;
    if (envelope.kind === 'mcp/request') {
      if (payload?.method === 'tools/list') this.requests.set(envelope.id, true);
      return undefined;
    }
    if (envelope.kind !== 'mcp/response' || this.requests.size === 0 || !envelope.correlation_id?.some((id) => this.requests.delete(id))) return undefined;
    const tools = payload?.result?.tools;
    return Array.isArray(tools) ? tools : undefined;
  }
}
