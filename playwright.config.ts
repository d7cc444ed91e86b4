import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH_OPTIONS } from './e2e/fixtures/chromium';

/** E2E_PORT lets several runs share a machine (each with its own NEXT_DIST_DIR build). */
const PORT = Number(process.env.E2E_PORT ?? 3200);
// Outside test-results/: Playwright empties that folder at start, possibly after the server has begun writing.
const DATA_DIR = process.env.E2E_DATA_DIR ?? `.e2e-data/${PORT}`;
/** The OAuth-protected MCP server e2e/mcp-oauth.spec.ts connects (PORT + 1 is the scripted model's, e2e/agent.spec.ts). */
const OAUTH_MCP_PORT = PORT + 2;

export default defineConfig({
  testDir: 'e2e',
  // Per port, so parallel runs do not empty each other's results folder.
  outputDir: `test-results/e2e-${PORT}`,
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  // In CI one retry, so a journey that fails once on a loaded machine is reported flaky (and counted) rather than
  // sinking the run; a journey that fails twice fails.
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    launchOptions: CHROMIUM_LAUNCH_OPTIONS,
  },
  webServer: [
    {
      // An OAuth-protected MCP server (the SDK's server auth, approving every authorization), up before the app so
      // the oauth space's launched bridge finds it: it answers 401 until someone connects it in Chromium.
      command: 'node --import tsx lib/mcp-oauth/testing/run-oauth-mcp-server.ts',
      url: `http://127.0.0.1:${OAUTH_MCP_PORT}/.well-known/oauth-authorization-server`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { PORT: String(OAUTH_MCP_PORT) },
    },
    {
      // The production entry, as `npm start` runs it: the server compiled to dist/ (built here when stale).
      command: 'node scripts/build-server.mjs && node dist/server.mjs',
      url: `http://127.0.0.1:${PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        NODE_ENV: 'production',
        PORT: String(PORT),
        HOST: '127.0.0.1',
        MEW_DATA_DIR: DATA_DIR,
        MEW_SPACE_CONFIG: 'lib/demo/demo-space.yaml,e2e/e2e-space.yaml,e2e/mcp-oauth-space.yaml',
        MEW_E2E_OAUTH_MCP_URL: `http://127.0.0.1:${OAUTH_MCP_PORT}/mcp`,
        MEW_DEMO_PACE_MS: '3000',
        // The demo's assistant runs against the scripted OpenAI-compatible server e2e/agent.spec.ts starts there.
        MEW_AGENT_BASE_URL: `http://127.0.0.1:${PORT + 1}/v1`,
        MEW_AGENT_MODEL: 'scripted-model',
        NEXT_TELEMETRY_DISABLED: '1',
        ...(process.env.NEXT_DIST_DIR ? { NEXT_DIST_DIR: process.env.NEXT_DIST_DIR } : {}),
      },
    },
  ],
});
