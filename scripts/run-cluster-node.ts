import { join } from 'node:path';
import { gatewayEnv, loadSpaceConfig, SettingsError, SpaceConfigError, type GatewayServerOptions } from '../lib/gateway';
import { ClusterNode } from '../lib/cluster/cluster-node';
import { maskRedisUrl } from '../lib/cluster/redis-connection';
import { demoSettings } from '../lib/launcher/space-processes';
import { listenOrExit } from './listen-or-exit';
import { signInLine } from './sign-in-line';

/**
 * Starts one node of a cluster (`MEW_REDIS_URL`, `MEW_NODE_ID`) on the same settings as a single gateway (PORT,
 * HOST, MEW_SPACE_CONFIG), and leaves the cluster cleanly on SIGINT/SIGTERM (its spaces move at once).
 */
export async function runClusterNode(
  mode: string,
  redisUrl: string,
  extra: Pick<GatewayServerOptions, 'fallback' | 'leaveOtherUpgrades'> = {},
): Promise<ClusterNode> {
  let env: ReturnType<typeof gatewayEnv>;
  let node: ClusterNode;
  try {
    env = gatewayEnv(process.cwd());
    node = new ClusterNode({
      redisUrl,
      nodeId: process.env.MEW_NODE_ID || undefined,
      spaces: env.configPaths.map((p) => loadSpaceConfig(p)),
      launches: { dataDir: env.dataDir, ...demoSettings(process.argv, process.env) },
      ...extra,
    });
  } catch (e) {
    if (!(e instanceof SpaceConfigError || e instanceof SettingsError)) throw e;
    console.error(`Cannot start: ${e.message}`);
    process.exit(1);
  }
  const port = await listenOrExit(node.listen(env.port, env.host), env.host, env.port);
  const base = `${env.host}:${port}`;
  console.log(
    [
      `MEW Dashboard (${mode}, cluster node ${node.nodeId}) on http://${base}  ·  gateway ws://${base}/ws  ·  Redis ${maskRedisUrl(redisUrl)}`,
      `  owns now: ${node.ownedSpaces.join(', ') || 'nothing'} (GET /cluster tells who owns what)`,
      ...node.ownedSpaces.flatMap((id) => signInLine(base, node.ownedSpace(id)!) ?? []),
      `  spaces, tokens, history and audit live in Redis; each space's owner runs its rules supervisor, launched participants, demo agents and observers`,
      `  logs of what this node runs: ${join(env.dataDir, '<space>', 'logs')}; any space's tokens: npm run tokens -- --space <id>`,
    ].join('\n'),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void node.close().then(() => process.exit(0)));
  }
  return node;
}
