import { fileURLToPath } from 'node:url';
import { RUNNER_FINAL_EXIT_CODES } from '../launcher/runner-exit-codes';

/** The bridge's runner, and tsx by absolute URL: the bridge runs in its MCP server's directory, where tsx may not resolve. */
const RUN_BRIDGE_PATH = fileURLToPath(new URL('./run-bridge.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

/**
 * The process that puts a config's `bridge:` MCP server into the space: this Node running `run-bridge.ts`, with the
 * MCP server's command after `--`, and the participant's connection in the environment: given, or the launcher's
 * `${GATEWAY}`, `${SPACE}`, `${TOKEN}` to fill (the bridge keeps the token from the MCP server).
 *
 * @example
 * bridgeProcess({ command: 'npx', args: ['mcp-server-filesystem', './sandbox'] });
 * // { command: '/usr/bin/node', args: ['--import', 'file:///…/tsx/…', '/…/run-bridge.ts', '--', 'npx', 'mcp-server-filesystem', './sandbox'], env: {…} }
 */
export function bridgeProcess(
  bridge: { command: string; args?: readonly string[]; env?: Record<string, string> },
  options: BridgeProcessOptions = {},
): { command: string; args: string[]; env: Record<string, string>; finalExitCodes: ReadonlySet<number> } {
  const { connection = { gateway: '${GATEWAY}', space: '${SPACE}', token: '${TOKEN}' }, initializeTimeoutMs, maxRestarts } = options;
  const tuning = [
    ...(initializeTimeoutMs !== undefined ? ['--init-timeout-ms', String(initializeTimeoutMs)] : []),
    ...(maxRestarts !== undefined ? ['--max-restarts', String(maxRestarts)] : []),
  ];
  return {
    command: process.execPath,
    finalExitCodes: RUNNER_FINAL_EXIT_CODES,
    args: ['--import', TSX_LOADER, RUN_BRIDGE_PATH, ...tuning, '--', bridge.command, ...(bridge.args ?? [])],
    env: { ...bridge.env, MEW_GATEWAY: connection.gateway, MEW_SPACE: connection.space, MEW_TOKEN: connection.token },
  };
}

export interface BridgeProcessOptions {
  /** @default the launcher's `${GATEWAY}`, `${SPACE}`, `${TOKEN}` */
  connection?: { gateway: string; space: string; token: string };
  /** How long the MCP server has to answer `initialize`. @default INITIALIZE_TIMEOUT_MS */
  initializeTimeoutMs?: number;
  /** Restarts of the MCP server allowed within a minute before it is left down. @default 5 */
  maxRestarts?: number;
}
