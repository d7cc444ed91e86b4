/**
 * Runs one MCP bridge as its own process, for an MCP server that speaks stdio or a remote one:
 *
 *   npm run bridge -- --gateway ws://127.0.0.1:3000/ws --space demo --token T -- npx mcp-server-filesystem ./sandbox
 *   MEW_BRIDGE_HEADER_0="Authorization: Bearer $KEY" npm run bridge -- --space demo --token T --url https://mcp.example.com/mcp
 *
 * `--gateway`, `--space` and `--token` default to MEW_GATEWAY, MEW_SPACE and MEW_TOKEN (the runner convention, how
 * the server starts a participant's `bridge:`; a token in the environment stays out of `ps`). A stdio MCP server runs
 * in this process's directory with its environment, minus MEW_TOKEN. A remote one is at `--url` (or MEW_BRIDGE_URL),
 * with the headers of MEW_BRIDGE_HEADER_<n> (`BRIDGE_ENV`), over Streamable HTTP falling back to SSE unless
 * `--transport streamable-http|sse` says which; without an `Authorization` header of its own, a server that asks for
 * an OAuth token gets the one the gateway's server holds for this participant (`lib/mcp-oauth`). Exit codes: RUNNER_EXIT_CODES.
 */
import { parseArgs } from 'node:util';
import { readRunnerConnection, RUNNER_EXIT_CODES } from '../launcher/runner-convention';
import { ServerTokenSource } from '../mcp-oauth/bridge-token-source';
import { ConnectionClosedError } from '../sdk/sdk-errors';
import { REMOTE_TRANSPORTS, type RemoteTransportName } from './bridge-defaults';
import { BRIDGE_ENV, readHeadersEnv } from './bridge-env';
import { McpBridge } from './mcp-bridge';
import { displayUrl, type McpServerSpec } from './mcp-server-spec';

const USAGE = [
  'usage: npm run bridge -- [--gateway ws://host:port/ws] [--space S] [--token T] [--init-timeout-ms N] [--max-restarts N] -- COMMAND [ARGS...]',
  '       npm run bridge -- [--gateway …] [--space S] [--token T] [--init-timeout-ms N] [--max-restarts N] --url URL [--transport streamable-http|sse]',
  `       (a remote server's headers: ${BRIDGE_ENV.headerPrefix}0="Name: value", ${BRIDGE_ENV.headerPrefix}1…)`,
].join('\n');

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
    url: { type: 'string' },
    transport: { type: 'string' },
  },
  allowPositionals: true,
});
const { gateway, space, token } = readRunnerConnection(values); // the MCP server must not inherit the bridge's token
const url = values.url || process.env[BRIDGE_ENV.url] || undefined;
delete process.env[BRIDGE_ENV.url];
const [command, ...args] = positionals;
if (!gateway || !space || !token || (command === undefined) === (url === undefined)) fail(RUNNER_EXIT_CODES.usage, USAGE);
if (url === undefined && values.transport !== undefined) fail(RUNNER_EXIT_CODES.usage, '--transport is for a remote server (--url)');

const count = (name: 'init-timeout-ms' | 'max-restarts') => {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) fail(RUNNER_EXIT_CODES.usage, `--${name} must be a whole number, not ${value}`);
  return Number(value);
};
const initializeTimeoutMs = count('init-timeout-ms');
const maxRestarts = count('max-restarts');
const server: McpServerSpec = url === undefined ? { command: command!, args } : remoteServer(url);
const bridge = new McpBridge({
  gateway,
  space,
  token,
  server,
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
console.error(`bridging ${url === undefined ? command : displayUrl(url)} into space "${space}" as ${bridge.participant.id}`);

/** The remote server of `--url`: an http(s) URL, a transport the bridge knows, headers it can send; else a usage error. */
function remoteServer(url: string): McpServerSpec {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {}
  if (protocol !== 'http:' && protocol !== 'https:') fail(RUNNER_EXIT_CODES.usage, `--url must be an http:// or https:// URL, not ${displayUrl(url)}`);
  const transport = values.transport;
  if (transport !== undefined && !(REMOTE_TRANSPORTS as readonly string[]).includes(transport)) {
    fail(RUNNER_EXIT_CODES.usage, `--transport must be one of ${REMOTE_TRANSPORTS.join(', ')}, not ${transport}`);
  }
  let headers: Record<string, string>;
  try {
    headers = readHeadersEnv();
  } catch (error) {
    fail(RUNNER_EXIT_CODES.usage, (error as Error).message);
  }
  // Without an Authorization header of its own, an OAuth access token comes from the server when the MCP server wants one.
  const ownAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  const oauth = ownAuthorization ? undefined : new ServerTokenSource({ gateway: gateway!, space: space!, token: token! });
  return { url, headers, ...(transport !== undefined && { transport: transport as RemoteTransportName }), ...(oauth && { oauth }) };
}
