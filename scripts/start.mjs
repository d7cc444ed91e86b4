// `npm start`: builds the app when no production build exists (or it is older than the sources), then serves it.
import { spawnSync } from 'node:child_process';
import { buildIfStale } from './build-if-stale.mjs';

if (!buildIfStale()) process.exit(1);
const server = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
});
process.exit(server.status ?? 0);
