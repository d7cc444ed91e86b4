import { BRIDGE_ENV } from '../bridge/bridge-env';
import type { SpaceConfig } from '../gateway/space-config';
import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import { expand } from '../launcher/env-template';
import { launchedOf } from '../launcher/launch-config';
import type { RunningProcesses } from '../launcher/launcher-feature';
import { createMcpOAuthRoute } from './mcp-oauth-api';
import { McpOAuthConnections, type RemoteBridge } from './mcp-oauth-connections';
import { MCP_OAUTH_TABLES, OAuthRecords } from './oauth-records';

export interface McpOAuthFeatureOptions {
  /** The origin people reach the control room at, where the authorization server sends them back. @default MEW_PUBLIC_URL, else where the server listens */
  publicUrl?: string;
  /** How the server reaches authorization servers (tests). @default global fetch */
  fetch?: typeof fetch;
}

/** OAuth as it runs for one space: what other features and tests reach. */
export interface RunningMcpOAuth extends RunningFeature {
  readonly connections: McpOAuthConnections;
}

/**
 * OAuth for the remote MCP servers a space's launched bridges reach: for a server that answers 401 with MCP
 * authorization metadata, an operator's Connect runs the authorization-code flow with PKCE (the SDK's `auth()` and
 * an `OAuthClientProvider` over the host's database), the tokens stay in the `mcp_oauth` table (replicated in a
 * cluster like every feature table), each bridge gets its access token from the server (refreshed here), and
 * Disconnect forgets them. A bridge whose config sends its own `Authorization` header is left to it.
 */
export function mcpOAuthFeature(options: McpOAuthFeatureOptions = {}): SpaceFeature {
  return {
    name: 'mcp-oauth',
    tables: MCP_OAUTH_TABLES,
    start(context): RunningMcpOAuth {
      const { space, config } = context;
      const origin = (options.publicUrl ?? process.env.MEW_PUBLIC_URL)?.replace(/\/+$/, '') || context.httpUrl.replace(/\/+$/, '');
      const connections = new McpOAuthConnections({
        space: space.id,
        records: new OAuthRecords(context.database, space.id, context.storage.replicate),
        bridges: remoteBridges(config, context.gatewayUrl),
        callbackUrl: `${origin}/api/spaces/${encodeURIComponent(space.id)}/oauth/callback`,
        ...(options.fetch && { fetch: options.fetch }),
        log: (line) => context.log(`[${space.id}] ${line}`),
        restartBridge: async (participant) => {
          const launcher = context.feature<RunningProcesses>('processes')?.launcher;
          const status = launcher?.status(space.id, participant);
          // One an operator stopped stays stopped: it gets its token when it is started.
          if (launcher && status && status.state !== 'stopped') await launcher.restart(space.id, participant);
        },
      });
      return { connections, routes: [createMcpOAuthRoute(context.gateway, connections)], stop: () => undefined };
    },
  };
}

/**
 * The launched remote bridges of a config that send no `Authorization` header of their own, with their URL filled as
 * the launcher fills it (`${NAME}` from the environment; the server's own variables but the token).
 */
function remoteBridges(config: SpaceConfig, gatewayUrl: string): Map<string, RemoteBridge> {
  const bridges = new Map<string, RemoteBridge>();
  for (const participant of config.participants) {
    const env = launchedOf(participant).launch?.env;
    const template = env?.[BRIDGE_ENV.url];
    if (!env || template === undefined) continue;
    const ownAuthorization = Object.entries(env).some(([name, line]) => name.startsWith(BRIDGE_ENV.headerPrefix) && /^\s*authorization\s*:/i.test(line));
    if (ownAuthorization) continue;
    const server = { GATEWAY: gatewayUrl, SPACE: config.id, PORT: new URL(gatewayUrl).port, PARTICIPANT_ID: participant.id };
    bridges.set(participant.id, { participant: participant.id, serverUrl: expand(template, server, process.env) });
  }
  return bridges;
}
