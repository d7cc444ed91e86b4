import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import { parseToolsListResult } from '../protocol';
import type { DiscoveredTool } from '../sdk/tool-discovery';
import type { RunningToolPins } from '../tool-pins/tool-pins-feature';
import { createMcpEndpoint, type McpEndpoint } from './mcp-endpoint';
import { createMcpSessionsRoute } from './mcp-sessions-api';
import { OPEN_PROPOSAL_TABLES, OpenProposals } from './open-proposals';

/** The MCP endpoint as it runs for one space (tests read its sessions). */
export interface RunningMcpEndpoint extends RunningFeature {
  readonly endpoint: McpEndpoint;
}

/**
 * Any MCP client joins the space as one of its participants: `/mcp/{space}` (Streamable HTTP), served by the space's
 * host, so by the space's owner in a cluster (other nodes forward to it).
 */
export function mcpEndpointFeature(): SpaceFeature {
  return {
    name: 'mcp',
    tables: OPEN_PROPOSAL_TABLES,
    start(context): RunningMcpEndpoint {
      const { space, gateway } = context;
      const proposals = new OpenProposals(context.database, space.id, context.storage.replicate);
      // Sessions end with the server that ran them: what they left waiting is withdrawn before anyone can approve it.
      const withdrawn = proposals.withdrawOrphans(space, (participantId, envelope) => {
        const participant = space.participants.get(participantId);
        if (!participant?.compiled.matches(envelope)) {
          context.log(`[${space.id}/mcp] cannot withdraw ${participantId}'s proposal ${envelope.correlation_id[0]}: it may not send mcp/withdraw`);
          return false;
        }
        const result = gateway.submit(space, participant, Buffer.from(JSON.stringify(envelope)));
        if (!result.ok) context.log(`[${space.id}/mcp] could not withdraw ${envelope.correlation_id[0]}: ${result.error.message}`);
        return result.ok;
      });
      if (withdrawn > 0) context.log(`[${space.id}/mcp] withdrew ${withdrawn} proposal(s) whose MCP sessions ended with the last run`);
      // What tool pinning saw listed, of the participants present: read as any tools/list answer is.
      const catalog = (): DiscoveredTool[] =>
        (context.feature<RunningToolPins>('tool-pins')?.records.currentDefinitions() ?? [])
          .filter(({ participant }) => space.participants.get(participant)?.online)
          .flatMap(({ participant, definition }) =>
            (parseToolsListResult({ tools: [definition] }) ?? []).map((tool) => ({ ...tool, participantId: participant })),
          );
      const endpoint = createMcpEndpoint({ gateway, space, gatewayUrl: context.gatewayUrl, join: context.join, catalog, proposals, log: context.log });
      // Which MCP clients are joined, as whom (members), and ending one (operators).
      const sessionsRoute = createMcpSessionsRoute(gateway, space, endpoint.sessions, context.audit);
      return { endpoint, routes: [endpoint.route, sessionsRoute], stop: () => endpoint.close() };
    },
  };
}
