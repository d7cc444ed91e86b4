import { BoundedMap } from '../collections/bounded-map';
import { parseToolsListResult, ToolsListAnswers, type Envelope, type ToolRisk } from '../protocol';

/** `tools/list` requests whose answers are still expected; far more than are under way at once. */
const LIST_REQUESTS_KEPT = 10_000;
/** Participants whose tools are remembered (the oldest listed first forgotten). */
const PARTICIPANTS_KEPT = 10_000;
/** Tools remembered per participant: a listing larger than this keeps its last ones. */
const TOOLS_KEPT = 10_000;

/**
 * The risk of each participant's tools as the space last heard it: fed with every `tools/list` answer the gateway
 * routes (`ToolsListAnswers`), read by the one tool-risk function (`toolRisk`, through `parseToolsListResult`), so
 * the gateway counts approvals by the same risk the rules, notifications and cards show. A listing page adds to (and
 * replaces the risk of) what the participant listed before. One per space; bounded.
 */
export class ToolRiskIndex {
  private readonly listings = new ToolsListAnswers(new BoundedMap(LIST_REQUESTS_KEPT));
  private readonly byParticipant = new BoundedMap<string, BoundedMap<string, ToolRisk | undefined>>(PARTICIPANTS_KEPT);

  /** Feeds one routed envelope (only `mcp/request` and `mcp/response` matter). */
  observe(envelope: Envelope): void {
    const entries = this.listings.answer(envelope);
    if (!entries) return;
    const tools = parseToolsListResult({ tools: entries }) ?? [];
    let known = this.byParticipant.get(envelope.from);
    if (!known) this.byParticipant.set(envelope.from, (known = new BoundedMap(TOOLS_KEPT)));
    for (const tool of tools) known.set(tool.name, tool.security);
  }

  /** The tool's risk as its participant last listed it; undefined when it declared none or was never listed. */
  risk(participant: string, tool: string): ToolRisk | undefined {
    return this.byParticipant.get(participant)?.get(tool);
  }
}
