import type { RunningFeature, SpaceFeature } from '../host/space-feature';
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
      const endpoint = createMcpEndpoint({
        gateway: context.gateway,
        space: context.space,
        gatewayUrl: context.gatewayUrl,
        join: context.join,
        log: context.log,
      });
      return { endpoint, routes: [endpoint.route], stop: () => endpoint.close() };
    },
  };
}
