import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { AGENT_EXIT_CODES, FINAL_EXIT_CODES } from './agent-exit-codes';
import {
  RESTART_BACKOFF_FACTOR,
  RESTART_INITIAL_DELAY_MS,
  RESTART_MAX_DELAY_MS,
  RESTART_STABLE_UPTIME_MS,
  STOP_GRACE_MS,
} from './demo-defaults';
import { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';

/** The runner each child executes, and the project root it runs in (where `tsx` resolves). */
const RUN_AGENT_PATH = fileURLToPath(new URL('./run-agent.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** When to restart a crashed agent. */
export interface RestartPolicy {
  initialDelayMs: number;
  /** Growth per consecutive crash. */
  factor: number;
  maxDelayMs: number;
  /** An agent up this long is healthy again: the next crash starts from `initialDelayMs`. */
  stableUptimeMs: number;
}

export interface DemoAgentsOptions {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws`. */
  gatewayUrl: string;
  space: string;
  /** Participant id → token (e.g. `readMintedTokens(dataDir, space)`); ids other than the agents' are ignored. */
  tokens: Record<string, string>;
  /** The gateway's data directory: the files agent's sandbox is `<dataDir>/<space>/sandbox`. */
  dataDir: string;
  /** Gap between agent steps. @default DEFAULT_PACE_MS */
  paceMs?: number;
  /** Which agents to run. @default DEMO_AGENT_NAMES (those with a token) */
  agents?: readonly DemoAgentName[];
  /** Where prefixed child output and supervisor notes go. @default console.log / console.error */
  output?: (line: string, stream: 'stdout' | 'stderr') => void;
  restart?: Partial<RestartPolicy>;
  /** Wait between SIGTERM and SIGKILL on `stop()`. @default STOP_GRACE_MS */
  stopGraceMs?: number;
}

/** `running`: a process is up; `waiting`: restarting after a backoff; `exited`: ended and left down; `stopped`: by `stop()`. */
export type SupervisedState = 'running' | 'waiting' | 'exited' | 'stopped';

/** A live view of one supervised agent. */
export interface SupervisedAgent {
  readonly name: DemoAgentName;
  readonly state: SupervisedState;
  /** The current process id, while running. */
  readonly pid: number | undefined;
  /** Processes started after the first one. */
  readonly restarts: number;
  /** How the previous process ended. */
  readonly lastExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export interface DemoAgents {
  readonly agents: readonly SupervisedAgent[];
  /** Stops every agent (SIGTERM, then SIGKILL after the grace period) and resolves once all have exited. */
  stop(): Promise<void>;
}

const DEFAULT_POLICY: RestartPolicy = {
  initialDelayMs: RESTART_INITIAL_DELAY_MS,
  factor: RESTART_BACKOFF_FACTOR,
  maxDelayMs: RESTART_MAX_DELAY_MS,
  stableUptimeMs: RESTART_STABLE_UPTIME_MS,
};

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
  const policy = { ...DEFAULT_POLICY, ...options.restart };
  const agents: Supervised[] = [];
  for (const name of options.agents ?? DEMO_AGENT_NAMES) {
    const token = options.tokens[name];
    if (token) agents.push(new Supervised(name, childEnv(options, token), policy, output));
    else output(`[${name}] no token for this participant: not started`, 'stderr');
  }
  return {
    agents,
    stop: async () => {
      await Promise.all(agents.map((agent) => agent.stop(options.stopGraceMs ?? STOP_GRACE_MS)));
    },
  };
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

/** One agent slot: its current process, and the restart decisions when that process ends. */
class Supervised implements SupervisedAgent {
  state: SupervisedState = 'running';
  restarts = 0;
  lastExit: SupervisedAgent['lastExit'];
  private child?: ChildProcess;
  private exited?: Promise<unknown>;
  private startedAt = 0;
  /** Consecutive crashes, for the backoff. */
  private crashes = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly name: DemoAgentName,
    private readonly env: NodeJS.ProcessEnv,
    private readonly policy: RestartPolicy,
    private readonly output: (line: string, stream: 'stdout' | 'stderr') => void,
  ) {
    this.spawn();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async stop(graceMs: number): Promise<void> {
    clearTimeout(this.retryTimer);
    if (this.state === 'exited') return;
    const { child, exited } = this;
    this.state = 'stopped';
    if (!child || !exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(killer);
  }

  private spawn(): void {
    this.state = 'running';
    this.startedAt = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', RUN_AGENT_PATH, this.name], {
      cwd: PROJECT_ROOT,
      env: this.env,
      // The IPC channel carries nothing: its closing tells the child that the supervisor is gone.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    this.exited = once(child, 'exit').then(([code, signal]) => this.handleExit(code as number | null, signal as NodeJS.Signals | null));
    child.on('error', (error) => this.note(`could not run: ${error.message}`));
    this.pipe(child.stdout!, 'stdout');
    this.pipe(child.stderr!, 'stderr');
  }

  private handleExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.child = undefined;
    this.lastExit = { code, signal };
    if (this.state === 'stopped') return;
    const how = signal ? `killed by ${signal}` : `exited with ${code}`;
    if (code !== null && FINAL_EXIT_CODES.has(code)) {
      this.state = 'exited';
      return this.note(`${how}: not restarting`);
    }
    if (code === AGENT_EXIT_CODES.restartRequested) {
      this.note('restart requested: restarting now');
      return this.restart();
    }
    if (Date.now() - this.startedAt >= this.policy.stableUptimeMs) this.crashes = 0;
    const delay = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * this.policy.factor ** this.crashes++);
    this.note(`${how}: restarting in ${delay} ms`);
    this.state = 'waiting';
    this.retryTimer = setTimeout(() => this.restart(), delay);
  }

  private restart(): void {
    this.restarts++;
    this.spawn();
  }

  private pipe(stream: Readable, kind: 'stdout' | 'stderr'): void {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.output(`[${this.name}] ${line}`, kind));
  }

  private note(message: string): void {
    this.output(`[${this.name}] ${message}`, 'stderr');
  }
}
