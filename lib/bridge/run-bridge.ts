/**
 * Runs one MCP bridge as its own process:
 *
 *   npm run bridge -- --gateway ws://127.0.0.1:3000/ws --space demo --token T -- npx mcp-server-filesystem ./sandbox
 *
 * `--gateway`, `--space` and `--token` default to MEW_GATEWAY, MEW_SPACE and MEW_TOKEN (the runner convention, how
 * the server starts a participant's `bridge:`; a token in the environment stays out of `ps`). The MCP server runs in
 * this process's directory with its environment, minus MEW_TOKEN. Exit codes: RUNNER_EXIT_CODES.
 */
import { parseArgs } from 'node:util';
import { readRunnerConnection, RUNNER_EXIT_CODES } from '../launcher/runner-convention';
import { ConnectionClosedError } from '../sdk/sdk-errors';
import { McpBridge } from './mcp-bridge';

const USAGE = 'usage: npm run bridge -- [--gateway ws://host:port/ws] [--space S] [--token T] [--init-timeout-ms N] [--max-restarts N] -- COMMAND [ARGS...]';

function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

const { values, positionals } = parseArgs({
  options: {
    gateway: { type: 'string' },
    space: { type: 'string' },
    token: { type: 'string' },
    'init-timeout-ms': { type: 'string' },
    'max-restarts': { type: 'string' },
  },
  allowPositionals: true,
});
const { gateway, space, token } = readRunnerConnection(values); // the MCP server must not inherit the bridge's token
const [command, ...args] = positionals;
if (!gateway || !space || !token || !command) fail(RUNNER_EXIT_CODES.usage, USAGE);

const count = (name: 'init-timeout-ms' | 'max-restarts') => {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) fail(RUNNER_EXIT_CODES.usage, `--${name} must be a whole number, not ${value}`);
  return Number(value);
};
const initializeTimeoutMs = count('init-timeout-ms');
const maxRestarts = count('max-restarts');
const bridge = new McpBridge({
  gateway,
  space,
  token,
  server: { command, args },
  ...(initializeTimeoutMs !== undefined && { initializeTimeoutMs }),
  ...(maxRestarts !== undefined && { backoff: { maxRestarts } }),
});
const stop = () => void bridge.stop().then(() => process.exit(0));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
// Under a supervisor an IPC channel ties this process to it: when the supervisor goes, so does the bridge.
if (process.send) process.once('disconnect', stop);

await bridge.connect().catch((error: unknown) => {
  if (error instanceof ConnectionClosedError) fail(RUNNER_EXIT_CODES.refused, `the gateway refused the bridge: ${error.message}`);
  throw error;
});
console.error(`bridging ${command} into space "${space}" as ${bridge.participant.id}`);
