import { fileURLToPath } from 'node:url';
import { LAUNCHER_CONNECTION, RUNNER_EXIT_POLICY, runnerConnectionEnv, type RunnerConnection } from '../launcher/runner-convention';
import type { RemoteTransportName } from './bridge-defaults';
import { BRIDGE_ENV, headersEnv } from './bridge-env';

/** The bridge's runner, and tsx by absolute URL: the bridge runs in its MCP server's directory, where tsx may not resolve. */
const RUN_BRIDGE_PATH = fileURLToPath(new URL('./run-bridge.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

/** A config's `bridge:` entry: an MCP server's command (stdio), or a remote server's URL. */
export type BridgeEntry =
  | { command: string; args?: readonly string[]; env?: Record<string, string> }
  | { url: string; headers?: Record<string, string>; transport?: RemoteTransportName };

/**
 * The process that puts a config's `bridge:` MCP server into the space: this Node running `run-bridge.ts`, with the
 * MCP server's command after `--` (or, for a remote server, its URL and headers in the environment, `BRIDGE_ENV`,
 * where `ps` does not show them), and the participant's connection in the environment by the runner convention:
 * given, or the launcher's `${GATEWAY}`, `${SPACE}`, `${TOKEN}` to fill (the bridge keeps the token from the MCP server).
 *
 * @example
 * bridgeProcess({ command: 'npx', args: ['mcp-server-filesystem', './sandbox'] });
 * // { command: '/usr/bin/node', args: ['--import', 'file:///…/tsx/…', '/…/run-bridge.ts', '--', 'npx', 'mcp-server-filesystem', './sandbox'], env: {…} }
 * bridgeProcess({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } });
 * // { …, args: [… '/…/run-bridge.ts'], env: { MEW_BRIDGE_URL: 'https://…', MEW_BRIDGE_HEADER_0: 'Authorization: Bearer ${API_KEY}', … } }
 */
export function bridgeProcess(
  bridge: BridgeEntry,
  options: BridgeProcessOptions = {},
): { command: string; args: string[]; env: Record<string, string> } & typeof RUNNER_EXIT_POLICY {
  const { connection = LAUNCHER_CONNECTION, initializeTimeoutMs, maxRestarts } = options;
  const tuning = [
    ...(initializeTimeoutMs !== undefined ? ['--init-timeout-ms', String(initializeTimeoutMs)] : []),
    ...(maxRestarts !== undefined ? ['--max-restarts', String(maxRestarts)] : []),
  ];
  const runner = ['--import', TSX_LOADER, RUN_BRIDGE_PATH, ...tuning];
  if ('url' in bridge) {
    return {
      command: process.execPath,
      ...RUNNER_EXIT_POLICY,
      args: [...runner, ...(bridge.transport ? ['--transport', bridge.transport] : [])],
      env: { [BRIDGE_ENV.url]: bridge.url, ...headersEnv(bridge.headers), ...runnerConnectionEnv(connection) },
    };
  }
  return {
    command: process.execPath,
    ...RUNNER_EXIT_POLICY,
    args: [...runner, '--', bridge.command, ...(bridge.args ?? [])],
    env: { ...bridge.env, ...runnerConnectionEnv(connection) },
  };
}

export interface BridgeProcessOptions {
  /** @default the launcher's `${GATEWAY}`, `${SPACE}`, `${TOKEN}` */
  connection?: RunnerConnection;
  /** How long the MCP server has to answer `initialize`. @default INITIALIZE_TIMEOUT_MS */
  initializeTimeoutMs?: number;
  /** Restarts of the MCP server (reconnects, for a remote one) allowed within a minute before it is left down. @default 5 */
  maxRestarts?: number;
}
