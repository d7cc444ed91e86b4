import { BoundedMap } from '../collections/bounded-map';
import { GATEWAY_ID } from '../gateway/gateway-options';
import { ToolsListAnswers } from '../protocol/tools-list';
import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import { toolDefinitionOf } from './tool-definition';
import { TOOL_PIN_TABLES, ToolPinRecords } from './tool-pin-records';
import { createToolPinsRoute } from './tool-pins-api';

/** `tools/list` requests whose answers are still expected; far more than are under way at once. */
const LIST_REQUESTS_KEPT = 10_000;

/** Pinned tool definitions as they run for one space: what other features ask. */
export interface RunningToolPins extends RunningFeature {
  readonly records: ToolPinRecords;
  /** Whether the participant's tool was redefined since it was pinned (no rule approves it; notifications ask to confirm). */
  changed(participant: string, tool: string): boolean;
}

/**
 * Pinned tool definitions: the host watches every `tools/list` answer routed in the space; each tool's first
 * definition (name, description, input schema, annotations, MGP security; SHA-256 over canonical JSON) is pinned,
 * and a later, different one marks the tool changed (audited `TOOL_DEFINITION_CHANGED` with both hashes) until an
 * operator accepts it — the "rug pull" of a trusted tool whose description starts instructing the agent. Pins live
 * in the host's database (a feature table: they survive restarts and cluster takeovers).
 */
export function toolPinsFeature(): SpaceFeature {
  return {
    name: 'tool-pins',
    tables: TOOL_PIN_TABLES,
    start(context): RunningToolPins {
      const { space, audit } = context;
      const records = new ToolPinRecords(context.database, space.id, context.storage.replicate);
      const listings = new ToolsListAnswers(new BoundedMap(LIST_REQUESTS_KEPT));
      const unobserve = space.observe((envelope) => {
        const tools = listings.answer(envelope);
        if (!tools) return;
        for (const tool of tools) {
          if (tool === null || typeof tool !== 'object') continue;
          const seen = toolDefinitionOf(tool as Record<string, unknown>);
          if (!seen) continue;
          const outcome = records.observe(envelope.from, seen.definition, seen.hash);
          if (outcome.kind !== 'changed') continue;
          audit.record({
            space: space.id,
            type: 'TOOL_DEFINITION_CHANGED',
            actor: GATEWAY_ID,
            subject: envelope.from,
            envelope_id: envelope.id,
            details: { tool: seen.definition.name, pinned_hash: outcome.pinnedHash, hash: seen.hash },
          });
          context.log(`[${space.id}] ${envelope.from}'s tool ${seen.definition.name} changed its definition: no rule approves it until an operator accepts it`);
        }
      });
      return {
        records,
        changed: (participant, tool) => records.changed(participant, tool),
        routes: [createToolPinsRoute(context.gateway, records, audit)],
        stop: unobserve,
      };
    },
  };
}
