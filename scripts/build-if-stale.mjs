// Builds the app when no production build exists in `distDir` or it is older than the sources (app/, components/,
// lib/), so `npm start` and `npm run bench:ui` never serve yesterday's code.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_DIRS = ['app', 'components', 'lib'];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Returns false when a needed build failed (its output is already on the terminal). */
export function buildIfStale(distDir = process.env.NEXT_DIST_DIR || '.next') {
  const root = process.cwd();
  const buildId = join(root, distDir, 'BUILD_ID');
  const stale = !existsSync(buildId) || SOURCE_DIRS.some((d) => existsSync(d) && newestMtime(join(root, d)) > statSync(buildId).mtimeMs);
  if (!stale) return true;
  console.log('Building the app (first start or sources changed)…');
  const build = spawnSync('npx', ['next', 'build'], { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  return build.status === 0;
}
