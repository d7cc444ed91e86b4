import { fileURLToPath } from 'node:url';
import { LAUNCHER_CONNECTION, RUNNER_EXIT_POLICY, runnerConnectionEnv, type RunnerConnection } from '../launcher/runner-convention';

/** The bridge's runner, and tsx by absolute URL: the bridge runs in its MCP server's directory, where tsx may not resolve. */
const RUN_BRIDGE_PATH = fileURLToPath(new URL('./run-bridge.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

/**
 * The process that puts a config's `bridge:` MCP server into the space: this Node running `run-bridge.ts`, with the
 * MCP server's command after `--`, and the participant's connection in the environment by the runner convention:
 * given, or the launcher's `${GATEWAY}`, `${SPACE}`, `${TOKEN}` to fill (the bridge keeps the token from the MCP server).
 *
 * @example
 * bridgeProcess({ command: 'npx', args: ['mcp-server-filesystem', './sandbox'] });
 * // { command: '/usr/bin/node', args: ['--import', 'file:///…/tsx/…', '/…/run-bridge.ts', '--', 'npx', 'mcp-server-filesystem', './sandbox'], env: {…} }
 */
export function bridgeProcess(
  bridge: { command: string; args?: readonly string[]; env?: Record<string, string> },
  options: BridgeProcessOptions = {},
): { command: string; args: string[]; env: Record<string, string> } & typeof RUNNER_EXIT_POLICY {
  const { connection = LAUNCHER_CONNECTION, initializeTimeoutMs, maxRestarts } = options;
  const tuning = [
    ...(initializeTimeoutMs !== undefined ? ['--init-timeout-ms', String(initializeTimeoutMs)] : []),
    ...(maxRestarts !== undefined ? ['--max-restarts', String(maxRestarts)] : []),
  ];
  return {
    command: process.execPath,
    ...RUNNER_EXIT_POLICY,
    args: ['--import', TSX_LOADER, RUN_BRIDGE_PATH, ...tuning, '--', bridge.command, ...(bridge.args ?? [])],
    env: { ...bridge.env, ...runnerConnectionEnv(connection) },
  };
}

export interface BridgeProcessOptions {
  /** @default the launcher's `${GATEWAY}`, `${SPACE}`, `${TOKEN}` */
  connection?: RunnerConnection;
  /** How long the MCP server has to answer `initialize`. @default INITIALIZE_TIMEOUT_MS */
  initializeTimeoutMs?: number;
  /** Restarts of the MCP server allowed within a minute before it is left down. @default 5 */
  maxRestarts?: number;
}
