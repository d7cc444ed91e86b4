/**
 * The convention between the launcher and the runners it starts (`run-mew-agent.ts` for `agent:` entries,
 * `run-bridge.ts` for `bridge:` entries, any `command:`, the demo's `run-agent.ts` among them): the environment a runner
 * reads and the exit codes it ends with. The launcher (`agentProcess`, `bridgeProcess`, `launch-config.ts`) sets the one and acts on the other
 * from here, and the runners read and use them from here.
 */

import type { AgentExit } from '../sdk/agent/agent-runtime';

/**
 * Every environment variable a launched runner reads. The connection's names are the reference implementation's
 * (MEW SDK spec, "Environment Variables"), so a config's own `command:` agents written for it read them too.
 */
export const RUNNER_ENV = {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws` (the launcher's `${GATEWAY}`). */
  gateway: 'MEW_GATEWAY',
  /** The space's id (`${SPACE}`). */
  space: 'MEW_SPACE',
  /** The participant's token (`${TOKEN}`); a runner takes it out of its environment once read. */
  token: 'MEW_TOKEN',
  /** `run-mew-agent.ts`: the `agent:` entry's settings as JSON, without the API key. */
  agentSettings: 'MEW_AGENT_SETTINGS',
  /** `run-mew-agent.ts`: where the API key is, unless the settings name another variable (`api_key_env`). */
  apiKey: 'OPENAI_API_KEY',
  /** The demo's agents: the gateway's data directory (their notebook and sandbox live under it). */
  dataDir: 'MEW_DATA_DIR',
  /** The demo's agents, optional: the gap between their steps, in ms. */
  demoPaceMs: 'MEW_DEMO_PACE_MS',
} as const;

/** Where a runner joins. */
export interface RunnerConnection {
  gateway: string;
  space: string;
  token: string;
}

/** The launcher's templates for a runner's connection (`env-template.ts` fills them when it starts the process). */
export const LAUNCHER_CONNECTION: Readonly<RunnerConnection> = Object.freeze({ gateway: '${GATEWAY}', space: '${SPACE}', token: '${TOKEN}' });

/**
 * The environment that hands a runner its connection: the launcher's templates by default.
 *
 * @example
 * runnerConnectionEnv(); // { MEW_GATEWAY: '${GATEWAY}', MEW_SPACE: '${SPACE}', MEW_TOKEN: '${TOKEN}' }
 */
export function runnerConnectionEnv(connection: Readonly<RunnerConnection> = LAUNCHER_CONNECTION): Record<string, string> {
  return { [RUNNER_ENV.gateway]: connection.gateway, [RUNNER_ENV.space]: connection.space, [RUNNER_ENV.token]: connection.token };
}

/**
 * A runner's connection: each value given on its command line, else from its environment (an empty variable counts as
 * unset); what is missing is undefined, for the runner's usage error. The token is taken out of `env` (so of
 * `process.env`): nothing the runner spawns or dumps may inherit it.
 *
 * @example
 * const { gateway, space, token } = readRunnerConnection({ gateway: values.gateway });
 */
export function readRunnerConnection(given: Partial<RunnerConnection> = {}, env: Record<string, string | undefined> = process.env): Partial<RunnerConnection> {
  const read = (key: keyof RunnerConnection) => given[key] || env[RUNNER_ENV[key]] || undefined;
  const connection = { gateway: read('gateway'), space: read('space'), token: read('token') };
  delete env[RUNNER_ENV.token];
  return connection;
}

/**
 * Exit codes of launched runners (sysexits.h values where one fits), and what the supervisor does with each. Any
 * other code, or death by a signal, is a crash: restarted by the entry's `restart` policy, with backoff.
 */
export const RUNNER_EXIT_CODES = {
  /** Stopped on purpose (SIGTERM/SIGINT, or its supervisor went away): the `restart` policy decides (`on-failure` leaves it down). */
  stopped: 0,
  /** Bad command line or environment (EX_USAGE): left down. */
  usage: 64,
  /** The runner's own loop failed (EX_SOFTWARE): a crash, restarted with backoff. */
  crashed: 70,
  /** `participant/restart` asked for a fresh start (EX_TEMPFAIL): started again at once. */
  restartRequested: 75,
  /** The gateway refused it for good: bad token, kicked, unknown space (EX_NOPERM): left down. */
  refused: 77,
  /** Nothing to run against, e.g. an agent without endpoint or key (EX_CONFIG): left down. */
  notConfigured: 78,
} as const;

/** The exit code of a runner whose agent runtime ended (`AgentRuntime.exited`), by why it ended. */
export const AGENT_EXIT_CODES: Readonly<Record<AgentExit, number>> = Object.freeze({
  stopped: RUNNER_EXIT_CODES.stopped,
  restart: RUNNER_EXIT_CODES.restartRequested,
  'connection-refused': RUNNER_EXIT_CODES.refused,
  crashed: RUNNER_EXIT_CODES.crashed,
});

/** After its agent ended, a runner lets the socket flush the last frames (a status, the close) before it exits. */
export const RUNNER_EXIT_FLUSH_MS = 150;

/**
 * How the supervisor treats a runner's exit codes, the part of a `LaunchSpec` every launcher of a runner sets: left
 * down after a code that starting again cannot help, started again at once after a restart request.
 */
export const RUNNER_EXIT_POLICY: Readonly<{ finalExitCodes: ReadonlySet<number>; restartNowExitCode: number }> = Object.freeze({
  finalExitCodes: new Set([RUNNER_EXIT_CODES.usage, RUNNER_EXIT_CODES.refused, RUNNER_EXIT_CODES.notConfigured]),
  restartNowExitCode: RUNNER_EXIT_CODES.restartRequested,
});
