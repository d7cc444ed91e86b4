// `npm start`: builds the app when no production build exists (or it is older than the sources), then serves it.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const buildId = join(root, '.next', 'BUILD_ID');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const stale = !existsSync(buildId) || ['app', 'components', 'lib'].some((d) => existsSync(d) && newestMtime(join(root, d)) > statSync(buildId).mtimeMs);
if (stale) {
  console.log('Building the app (first start or sources changed)…');
  const build = spawnSync('npx', ['next', 'build'], { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const server = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
});
process.exit(server.status ?? 0);
