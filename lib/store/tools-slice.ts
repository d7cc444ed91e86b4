import { trimMap, writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { correlationIds, isRecord, payloadOf, str, strings, type JsonObject, type StoreEnvelope } from './store-envelope';

/** Unanswered `tools/list` requests remembered for correlation; older ones are forgotten. */
const PENDING_LISTS_CAP = 200;

/** MGP tool security metadata (mgp-0.5.2 §4.3), as the control room shows it on proposals for the tool. */
export interface ToolSecurity {
  /** `safe`, `moderate` or `dangerous` (other strings are kept as given). */
  risk_level?: string;
  confirmation_required?: boolean;
  side_effects?: readonly string[];
  /** Where it was read: MGP `security`, MGP fields inside `annotations`, or MCP's own hints (`destructiveHint`…). */
  source: 'security' | 'annotations' | 'mcp-hints';
}

/** One tool from a participant's `tools/list` result. */
export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: unknown;
  security?: ToolSecurity;
}

/** A participant's tools, from the latest `tools/list` response it sent. */
export interface ParticipantTools {
  participant: string;
  tools: readonly ToolInfo[];
  byName: ReadonlyMap<string, ToolInfo>;
  /** The `mcp/response` they came from. */
  responseId: string;
  at: number;
}

/** Tools by participant, plus the `tools/list` requests awaiting their response. */
export interface ToolsState {
  byParticipant: ReadonlyMap<string, ParticipantTools>;
  /** `mcp/request` id → whether it asked for a further page (`params.cursor`), which is merged, not replaced. */
  pendingLists: ReadonlyMap<string, { paged: boolean }>;
  /** Incremented whenever some participant's tools change (proposal risk is refreshed then). */
  version: number;
}

/** A fresh tools slice. */
export function initialTools(): ToolsState {
  return { byParticipant: new Map(), pendingLists: new Map(), version: 0 };
}

/**
 * Reads tool security: MGP `tool.security`, else MGP fields in `tool.annotations`, else MCP hints
 * (`destructiveHint: true` → dangerous, `readOnlyHint: true` → safe). Undefined when none says anything.
 */
export function toolSecurity(tool: JsonObject): ToolSecurity | undefined {
  const fromMgp = (value: unknown, source: ToolSecurity['source']): ToolSecurity | undefined => {
    if (!isRecord(value)) return undefined;
    const risk = str(value.risk_level);
    const confirm = typeof value.confirmation_required === 'boolean' ? value.confirmation_required : undefined;
    const effects = strings(value.side_effects);
    if (risk === undefined && confirm === undefined && effects === undefined) return undefined;
    return { risk_level: risk, confirmation_required: confirm, side_effects: effects, source };
  };
  const found = fromMgp(tool.security, 'security') ?? fromMgp(tool.annotations, 'annotations');
  if (found) return found;
  if (isRecord(tool.annotations)) {
    if (tool.annotations.destructiveHint === true) return { risk_level: 'dangerous', source: 'mcp-hints' };
    if (tool.annotations.readOnlyHint === true) return { risk_level: 'safe', source: 'mcp-hints' };
  }
  return undefined;
}

function toolInfo(tool: JsonObject): ToolInfo | undefined {
  const name = str(tool.name);
  if (!name) return undefined;
  return { name, description: str(tool.description), inputSchema: tool.inputSchema, security: toolSecurity(tool) };
}

/**
 * Tracks `tools/list`: an `mcp/request` whose `payload.method` is `tools/list` is remembered; the `mcp/response`
 * correlated to it with `result.tools` sets its sender's tools (the responder owns them, whoever was asked).
 */
export function reduceTools(state: ToolsState, envelope: StoreEnvelope, ctx: ReduceContext): ToolsState {
  if (envelope.kind === 'mcp/request') {
    const payload = payloadOf(envelope);
    if (payload.method !== 'tools/list') return state;
    const paged = isRecord(payload.params) && payload.params.cursor !== undefined;
    const pendingLists = writable(state.pendingLists);
    pendingLists.set(envelope.id, { paged });
    trimMap(pendingLists, PENDING_LISTS_CAP);
    return { ...state };
  }
  if (envelope.kind !== 'mcp/response') return state;
  const requestId = correlationIds(envelope).find((id) => state.pendingLists.has(id));
  if (requestId === undefined) return state;
  const { paged } = state.pendingLists.get(requestId) as { paged: boolean };
  writable(state.pendingLists).delete(requestId);
  const result = payloadOf(envelope).result;
  if (!isRecord(result) || !Array.isArray(result.tools)) return { ...state };

  const incoming = result.tools.filter(isRecord).map(toolInfo).filter((t): t is ToolInfo => t !== undefined);
  const previous = state.byParticipant.get(envelope.from);
  const byName = new Map<string, ToolInfo>(paged && previous ? previous.byName : []);
  for (const tool of incoming) byName.set(tool.name, tool);
  writable(state.byParticipant).set(envelope.from, {
    participant: envelope.from,
    tools: [...byName.values()],
    byName,
    responseId: envelope.id,
    at: ctx.at,
  });
  return { ...state, version: state.version + 1 };
}

/**
 * The security of `toolName` on `target`; without a target (a broadcast proposal), the one participant offering a
 * tool of that name, if exactly one does.
 */
export function findToolSecurity(tools: ToolsState, target: string | undefined, toolName: string | undefined): ToolSecurity | undefined {
  if (!toolName) return undefined;
  if (target !== undefined) return tools.byParticipant.get(target)?.byName.get(toolName)?.security;
  const offering = [...tools.byParticipant.values()].filter((p) => p.byName.has(toolName));
  return offering.length === 1 ? offering[0].byName.get(toolName)?.security : undefined;
}
