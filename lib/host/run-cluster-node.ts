import { join } from 'node:path';
import { ClusterNode } from '../cluster/cluster-node';
import { maskRedisUrl } from '../cluster/redis-connection';
import { loadSpaceConfig } from '../gateway';
import { listenOrExit } from './listen-or-exit';
import { exitOnSettingsError, type ServerEnv, type Serving } from './run-server';
import { configSections, type SpaceFeature } from './space-feature';
import { signInLine } from './sign-in-line';

/**
 * Starts one node of a cluster (`MEW_REDIS_URL`, `MEW_NODE_ID`) on the same settings as a single gateway (PORT,
 * HOST, MEW_SPACE_CONFIG), and leaves the cluster cleanly on SIGINT/SIGTERM (its spaces move at once).
 */
export async function runClusterNode(options: {
  mode: string;
  redisUrl: string;
  env: ServerEnv;
  features: readonly SpaceFeature[];
  serving: Serving;
}): Promise<ClusterNode> {
  const { mode, redisUrl, env } = options;
  let node: ClusterNode;
  try {
    node = new ClusterNode({
      redisUrl,
      nodeId: process.env.MEW_NODE_ID || undefined,
      spaces: env.configPaths.map((p) => loadSpaceConfig(p, { sections: configSections(options.features) })),
      features: options.features,
      ...options.serving,
    });
  } catch (e) {
    exitOnSettingsError(e);
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
