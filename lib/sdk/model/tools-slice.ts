import { trimMap, writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { parseToolsListResult, type ListedTool } from '../../protocol';
import { correlationIds, isRecord, payloadOf, type StoreEnvelope } from './store-envelope';

/** Unanswered `tools/list` requests remembered for correlation; older ones are forgotten. */
const PENDING_LISTS_CAP = 200;

/** A tool's security as the control room shows it on proposals for the tool (one definition, in lib/protocol). */
export type ToolSecurity = NonNullable<ListedTool['security']>;

/** One tool from a participant's `tools/list` result. */
export type ToolInfo = ListedTool;

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
  const incoming = parseToolsListResult(payloadOf(envelope).result);
  if (!incoming) return { ...state };

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
