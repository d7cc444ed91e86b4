// `npm test`: the formatter and linter, every suite (vitest for lib/, Playwright in real Chromium for e2e/), then one summary line
// `N passed, N failed` over all of them. Installs Debian's redis-server and Chromium first when they are missing
// (CI runs as root).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
const out = 'test-results';
mkdirSync(out, { recursive: true });

function run(cmd, args) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  return spawnSync(cmd, args, { stdio: 'inherit', env }).status ?? 1;
}

/** Installs a Debian package when its binary is missing (CI runs as root on a fresh machine). */
function ensureDebianPackage(path, pkg) {
  if (existsSync(path)) return true;
  if (process.getuid?.() !== 0) {
    console.error(`${pkg} not found at ${path}; install it (apt-get install -y ${pkg}).`);
    return false;
  }
  return run('sh', ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkg}`]) === 0;
}

const ensureChromium = () => ensureDebianPackage(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', 'chromium');

let passed = 0;
let failed = 0;

// Formatting and lint (Biome, biome.jsonc): one check, counted like a suite.
const lintStatus = run('npx', ['biome', 'check', '--diagnostic-level=error', '.']);
if (lintStatus === 0) passed += 1;
else failed += 1;

// Unit and integration tests (real gateways on port 0; cluster tests start their own Redis).
if (!process.env.REDIS_SERVER) ensureDebianPackage('/usr/bin/redis-server', 'redis-server');
rmSync(`${out}/vitest.json`, { force: true });
const vitestStatus = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${out}/vitest.json`]);
if (existsSync(`${out}/vitest.json`)) {
  const report = JSON.parse(readFileSync(`${out}/vitest.json`, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
}
if (vitestStatus !== 0 && !existsSync(`${out}/vitest.json`)) failed += 1;

// End-to-end journeys against the production server in Chromium.
let e2eStatus = 1;
if (ensureChromium() && run('npx', ['next', 'build']) === 0) {
  rmSync('.e2e-data', { recursive: true, force: true }); // a fresh gateway state for every run
  rmSync(`${out}/playwright.json`, { force: true });
  env.PLAYWRIGHT_JSON_OUTPUT_NAME = `${out}/playwright.json`;
  e2eStatus = run('npx', ['playwright', 'test', '--reporter=list,json']);
  if (existsSync(`${out}/playwright.json`)) {
    const { stats } = JSON.parse(readFileSync(`${out}/playwright.json`, 'utf8'));
    passed += stats.expected + stats.flaky;
    failed += stats.unexpected;
  }
}
if (e2eStatus !== 0 && failed === 0) failed += 1; // the suite could not run at all: never report green

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || lintStatus !== 0 || vitestStatus !== 0 || e2eStatus !== 0 ? 1 : 0);
