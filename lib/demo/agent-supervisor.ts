import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeProcess } from '../bridge/bridge-process';
import { filesystemServer } from '../bridge/filesystem-server';
import { SupervisedProcess, type Backoff, type ProcessStatus } from '../launcher/supervised-process';
import { AGENT_EXIT_CODES, FINAL_EXIT_CODES } from './agent-exit-codes';
import {
  FILES_PARTICIPANT_ID,
  RESTART_BACKOFF_FACTOR,
  RESTART_INITIAL_DELAY_MS,
  RESTART_MAX_DELAY_MS,
  RESTART_STABLE_UPTIME_MS,
  STOP_GRACE_MS,
} from './demo-defaults';
import { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';
import { sandboxPath, seedSandbox } from './sandbox';

/** The runner each child executes, and the project root it runs in (where `tsx` resolves). */
const RUN_AGENT_PATH = fileURLToPath(new URL('./run-agent.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface DemoAgentsOptions {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws`. */
  gatewayUrl: string;
  space: string;
  /** Participant id → token (the gateway's minted tokens); ids other than the agents' are ignored. */
  tokens: Record<string, string>;
  /** The gateway's data directory: the `files` server's sandbox is `<dataDir>/<space>/sandbox`. */
  dataDir: string;
  /** Gap between agent steps. @default DEFAULT_PACE_MS */
  paceMs?: number;
  /** Which agents to run. @default DEMO_AGENT_NAMES (those with a token) */
  agents?: readonly DemoAgentName[];
  /** Where prefixed child output and supervisor notes go. @default console.log / console.error */
  output?: (line: string, stream: 'stdout' | 'stderr') => void;
  restart?: Partial<Backoff>;
  /** Wait between SIGTERM and SIGKILL on `stop()`. @default STOP_GRACE_MS */
  stopGraceMs?: number;
}

/** A live view of one supervised agent. */
export interface SupervisedAgent extends ProcessStatus {
  readonly name: DemoAgentName;
}

export interface DemoAgents {
  readonly agents: readonly SupervisedAgent[];
  /** Stops every agent (SIGTERM, then SIGKILL after the grace period) and resolves once all have exited. */
  stop(): Promise<void>;
}

/**
 * Runs the demo space's agents as child processes (`node --import tsx lib/demo/run-agent.ts <name>`, each with
 * its token in its environment), prefixes their output with `[name]`, restarts a crashed one with exponential
 * backoff (reset once it has stayed up a while), restarts at once one that asked for it (`participant/restart`,
 * exit 75), and leaves down one that exited cleanly or cannot connect. Call it once the gateway listens.
 *
 * @example
 * const demo = startDemoAgents({ gatewayUrl: 'ws://127.0.0.1:3000/ws', space: 'demo', tokens: readMintedTokens('data', 'demo'), dataDir: 'data' });
 * process.once('SIGTERM', () => void demo.stop());
 */
export function startDemoAgents(options: DemoAgentsOptions): DemoAgents {
  const output = options.output ?? ((line, stream) => (stream === 'stdout' ? console.log(line) : console.error(line)));
  const running: { name: DemoAgentName; process: SupervisedProcess }[] = [];
  for (const name of options.agents ?? DEMO_AGENT_NAMES) {
    const token = options.tokens[name];
    if (!token) {
      output(`[${name}] no token for this participant: not started`, 'stderr');
      continue;
    }
    const process = new SupervisedProcess({
      name,
      ...childCommand(name, options, token),
      cwd: PROJECT_ROOT,
      // Crashes are restarted with backoff; a clean exit or a final code (usage, cannot connect) leaves it down.
      restart: 'on-failure',
      backoff: { initialDelayMs: RESTART_INITIAL_DELAY_MS, factor: RESTART_BACKOFF_FACTOR, maxDelayMs: RESTART_MAX_DELAY_MS, stableUptimeMs: RESTART_STABLE_UPTIME_MS, ...options.restart },
      finalExitCodes: FINAL_EXIT_CODES,
      restartNowExitCode: AGENT_EXIT_CODES.restartRequested,
      output: (line, stream) => output(`[${name}] ${line}`, stream),
    });
    running.push({ name, process });
  }
  return {
    agents: running.map(({ name, process }) => ({
      name,
      get state() {
        return process.status.state;
      },
      get pid() {
        return process.status.pid;
      },
      get restarts() {
        return process.status.restarts;
      },
      get lastExit() {
        return process.status.lastExit;
      },
    })),
    stop: async () => {
      await Promise.all(running.map(({ process }) => process.stop(options.stopGraceMs ?? STOP_GRACE_MS)));
    },
  };
}

/**
 * `files` is the official filesystem MCP server on the space's sandbox, through the MCP bridge; the others are the
 * SDK agents of `run-agent.ts`.
 */
function childCommand(name: DemoAgentName, options: DemoAgentsOptions, token: string): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  if (name === FILES_PARTICIPANT_ID) {
    const sandbox = seedSandbox(resolve(sandboxPath(options.dataDir, options.space)));
    const bridge = bridgeProcess(filesystemServer(sandbox), { gateway: options.gatewayUrl, space: options.space, token });
    return { command: bridge.command, args: bridge.args, env: { ...process.env, ...bridge.env } };
  }
  return { command: process.execPath, args: ['--import', 'tsx', RUN_AGENT_PATH, name], env: childEnv(options, token) };
}

function childEnv(options: DemoAgentsOptions, token: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MEW_GATEWAY_URL: options.gatewayUrl,
    MEW_SPACE: options.space,
    MEW_TOKEN: token,
    // The child runs in the project root: a relative data directory must mean what it means to the caller.
    MEW_DATA_DIR: resolve(options.dataDir),
    ...(options.paceMs !== undefined && { MEW_DEMO_PACE_MS: String(options.paceMs) }),
  };
}
