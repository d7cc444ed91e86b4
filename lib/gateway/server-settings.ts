import { resolve } from 'node:path';
import { DURABILITY_LEVELS, START_FRESH_ENV, type Durability } from './persistence/gateway-database';

/**
 * Settings from the environment: PORT, HOST (loopback by default), MEW_SPACE_CONFIG (comma-separated), MEW_DATA_DIR,
 * MEW_START_FRESH=1 (start over on purpose when the data directory is refused: its database is moved aside, never
 * deleted), MEW_DURABILITY (`process`, the default, or `power`).
 */
export function gatewayEnv(projectRoot: string, env: NodeJS.ProcessEnv = process.env) {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    configPaths: (env.MEW_SPACE_CONFIG ?? resolve(projectRoot, 'lib/demo/demo-space.yaml')).split(',').map((p) => resolve(p.trim())),
    dataDir: resolve(env.MEW_DATA_DIR ?? resolve(projectRoot, 'data')),
    startFresh: env[START_FRESH_ENV] === '1',
    durability: durabilityOf(env.MEW_DURABILITY),
  };
}

/** An environment setting the server cannot use; its message is the one line to print. */
export class SettingsError extends Error {}

function durabilityOf(value: string | undefined): Durability {
  if (value === undefined || value === '') return 'process';
  if ((DURABILITY_LEVELS as readonly string[]).includes(value)) return value as Durability;
  throw new SettingsError(`MEW_DURABILITY must be one of ${DURABILITY_LEVELS.join(', ')}, not "${value}"`);
}
