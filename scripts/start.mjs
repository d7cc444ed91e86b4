// `npm start`: builds the app when no production build exists (or it is older than the sources), compiles the
// server to dist/ likewise (scripts/build-server.mjs), then serves it with plain node (no TypeScript loader).
import { spawnSync } from 'node:child_process';
import { buildIfStale } from './build-if-stale.mjs';
import { buildServerIfStale } from './build-server.mjs';

if (!buildIfStale()) process.exit(1);
const compiled = await buildServerIfStale().catch(() => process.exit(1));
const server = spawnSync(process.execPath, [compiled.server, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
});
process.exit(server.status ?? 0);
