import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import { parseToolsListResult } from '../protocol';
import type { DiscoveredTool } from '../sdk/tool-discovery';
import type { RunningToolPins } from '../tool-pins/tool-pins-feature';
import { createMcpEndpoint, type McpEndpoint } from './mcp-endpoint';

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
    start(context): RunningMcpEndpoint {
      const { space } = context;
      // What tool pinning saw listed, of the participants present: read as any tools/list answer is.
      const catalog = (): DiscoveredTool[] =>
        (context.feature<RunningToolPins>('tool-pins')?.records.currentDefinitions() ?? [])
          .filter(({ participant }) => space.participants.get(participant)?.online)
          .flatMap(({ participant, definition }) =>
            (parseToolsListResult({ tools: [definition] }) ?? []).map((tool) => ({ ...tool, participantId: participant })),
          );
      const endpoint = createMcpEndpoint({ gateway: context.gateway, space, gatewayUrl: context.gatewayUrl, join: context.join, catalog, log: context.log });
      return { endpoint, routes: [endpoint.route], stop: () => endpoint.close() };
    },
  };
}
