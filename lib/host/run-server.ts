import { join } from 'node:path';
import { DATABASE_FILE, gatewayEnv, PersistenceError, SettingsError, SpaceConfigError } from '../gateway';
import { launchSettings } from '../launcher/space-processes';
import { createGatewayServer, type GatewayServerOptions } from './gateway-server';
import { listenOrExit } from './listen-or-exit';
import { serverFeatures } from './server-features';
import { signInLine } from './sign-in-line';
import type { SpaceFeature } from './space-feature';

/** How the server shares its port with the app: requests and upgrades the gateway does not serve. */
export type Serving = Pick<GatewayServerOptions, 'fallback' | 'leaveOtherUpgrades'>;

/** The settings `runServer` read from the environment. */
export type ServerEnv = ReturnType<typeof gatewayEnv>;

/** A setting, config or data directory the server cannot use: its one-line message, and exit 1. */
export function exitOnSettingsError(e: unknown): never {
  if (!(e instanceof SpaceConfigError || e instanceof PersistenceError || e instanceof SettingsError)) throw e;
  console.error(`Cannot start: ${e.message}`);
  process.exit(1);
}

/**
 * The composition root of `npm start`, `npm run dev` and `npm run gateway`: the settings from the environment (PORT,
 * HOST, MEW_SPACE_CONFIG, MEW_DATA_DIR, MEW_START_FRESH, MEW_DURABILITY, `--demo off`), the features every space
 * runs (`serverFeatures`), and either one process or, with MEW_REDIS_URL, one node of a cluster; both host each space
 * with the same `SpaceHost`. Prints where it listens and how to sign in; SIGINT/SIGTERM shut it down cleanly.
 */
export async function runServer(mode: string, serving: Serving = {}): Promise<void> {
  let env: ServerEnv;
  try {
    env = gatewayEnv(process.cwd());
  } catch (e) {
    exitOnSettingsError(e);
  }
  const features = serverFeatures({ launch: { dataDir: env.dataDir, ...launchSettings(process.argv, process.env) } });
  const redisUrl = process.env.MEW_REDIS_URL;
  // Cluster code (and ioredis with it) is loaded only by a cluster node.
  if (redisUrl) await (await import('./run-cluster-node')).runClusterNode({ mode, redisUrl, env, features, serving });
  else await runSingleProcess(mode, env, features, serving);
}

async function runSingleProcess(mode: string, env: ServerEnv, features: SpaceFeature[], serving: Serving): Promise<void> {
  // What the hosts print as they start comes after the header; later lines at once.
  let lines: string[] | undefined = [];
  const log = (line: string) => (lines ? lines.push(line) : console.log(line));
  let server: ReturnType<typeof createGatewayServer>;
  try {
    server = createGatewayServer({ ...env, ...serving, features, log });
  } catch (e) {
    exitOnSettingsError(e);
  }
  const port = await listenOrExit(server.listen(env.port, env.host), env.host, env.port);
  const base = `${env.host}:${port}`;
  const header = [`MEW Dashboard (${mode}) on http://${base}  ·  gateway ws://${base}/ws`];
  for (const space of server.gateway.spaces.values()) {
    header.push(`  space "${space.id}": ${[...space.participants.keys()].join(', ')}`);
    const { ignored, readLeniently, source } = server.configs.find((config) => config.id === space.id) ?? {};
    if (readLeniently) header.push(`    ${source} read leniently, as the reference implementation reads it (strict YAML says: ${readLeniently})`);
    if (ignored) header.push(`    ignored (the reference implementation's, with no effect here): ${ignored.join(', ')}`);
    const signIn = signInLine(base, space);
    if (signIn) header.push(signIn);
  }
  header.push(`  minted tokens, state, history and audit: ${join(env.dataDir, DATABASE_FILE)} (print tokens: npm run tokens -- --space <id>)`);
  console.log([...header, ...lines].join('\n'));
  lines = undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void server.close().then(() => process.exit(0)));
  }
}
