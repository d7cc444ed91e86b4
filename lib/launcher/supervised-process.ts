import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ProcessState } from '../protocol';
import { backoffDelay, type Backoff } from '../sdk/backoff';
import { endingWithParent } from './end-with-parent';
import type { RestartPolicyName } from './launch-spec';

/** First restart delay after a crash, before jitter. */
export const RESTART_MIN_DELAY_MS = 1_000;
/** Cap of the restart delay. */
export const RESTART_MAX_DELAY_MS = 30_000;
/** Growth of the restart delay per consecutive crash. */
export const RESTART_DELAY_EXPONENT = 2;
/** Share of each restart delay that is randomised (75–100% of it), so processes that crashed together do not come back together. */
export const RESTART_JITTER_RATIO = 0.25;
/** A process up this long is healthy again: the next crash starts from the first delay. */
export const RESTART_STABLE_UPTIME_MS = 30_000;
/** At most this many restarts within `RESTART_WINDOW_MS`; then it is left down, crashed, until started by hand. */
export const RESTART_MAX_RESTARTS = 5;
/** The window `RESTART_MAX_RESTARTS` counts restarts in. */
export const RESTART_WINDOW_MS = 60_000;

/**
 * How a process that ended is started again: the project's one `Backoff` (`backoffDelay`) for the delays, and when
 * to give up. Every field defaults to the `RESTART_*` constant of the same meaning. Times in ms.
 */
export interface RestartBackoff extends Backoff {
  /** A process up this long is healthy again: the next crash starts from `minDelayMs`. */
  stableUptimeMs: number;
  /** At most this many restarts within `windowMs`; then it is left down, crashed, until started by hand. */
  maxRestarts: number;
  windowMs: number;
}

export const DEFAULT_RESTART_BACKOFF: Readonly<RestartBackoff> = Object.freeze({
  minDelayMs: RESTART_MIN_DELAY_MS,
  maxDelayMs: RESTART_MAX_DELAY_MS,
  exponent: RESTART_DELAY_EXPONENT,
  jitterRatio: RESTART_JITTER_RATIO,
  stableUptimeMs: RESTART_STABLE_UPTIME_MS,
  maxRestarts: RESTART_MAX_RESTARTS,
  windowMs: RESTART_WINDOW_MS,
});

/** Waiting between SIGTERM and SIGKILL when stopping. */
export const STOP_GRACE_MS = 3_000;

export type { ProcessState };

export interface ProcessSpec {
  /** For messages: `[name] …`. */
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  restart: RestartPolicyName;
  backoff?: Partial<RestartBackoff>;
  /** Exit codes that mean "leave me down" whatever the policy (e.g. a usage error). */
  finalExitCodes?: ReadonlySet<number>;
  /** An exit code that means "start me again now" (e.g. after `participant/restart`). */
  restartNowExitCode?: number;
  /** Each line of output, and the supervisor's own notes. */
  output(line: string, stream: 'stdout' | 'stderr'): void;
  /** Told on every state change. */
  onChange?(): void;
  /** Told when a new child is up (first start and every restart), before any of its output. */
  onSpawn?(pid: number | undefined): void;
  /** Keep the child's stdin open for `write` (a stdio protocol peer, e.g. an MCP server). @default false */
  stdin?: boolean;
  /** End the child when this process dies, even by SIGKILL (`endingWithParent`; not on Windows). @default false */
  endWithParent?: boolean;
}

/** What an operator sees of a supervised process. */
export interface ProcessStatus {
  state: ProcessState;
  pid?: number;
  /** Processes started after the first. */
  restarts: number;
  lastExit?: { code: number | null; signal: NodeJS.Signals | null; at: number };
  /** When the next start is due, while `restarting`. */
  restartAt?: number;
}

/**
 * One supervised process: started at once, restarted by its policy with jittered exponential backoff (reset once it
 * has stayed up a while, capped at `maxRestarts` per window), started again at once when it exits with
 * `restartNowExitCode`, and stopped with SIGTERM then SIGKILL. Output goes line by line to `output`.
 *
 * @example
 * const p = new SupervisedProcess({ name: 'coder', command: 'node', args: ['coder.js'], cwd, env, restart: 'on-failure', output: console.log });
 * await p.stop();
 */
export class SupervisedProcess {
  private _state: ProcessState = 'starting';
  private _restarts = 0;
  private _lastExit?: ProcessStatus['lastExit'];
  private restartAt?: number;
  private child?: ChildProcess;
  private exited?: Promise<unknown>;
  private startedAt = 0;
  private crashes = 0;
  private recentRestarts: number[] = [];
  private retryTimer?: ReturnType<typeof setTimeout>;
  private readonly backoff: RestartBackoff;

  constructor(private readonly spec: ProcessSpec) {
    this.backoff = { ...DEFAULT_RESTART_BACKOFF, ...spec.backoff };
    this.spawn();
  }

  get status(): ProcessStatus {
    return {
      state: this._state,
      ...(this.child?.pid !== undefined && { pid: this.child.pid }),
      restarts: this._restarts,
      ...(this._lastExit && { lastExit: this._lastExit }),
      ...(this.restartAt !== undefined && { restartAt: this.restartAt }),
    };
  }

  /** Starts it again (after a crash, exit or stop); does nothing while it runs. */
  start(): void {
    if (this.child) return;
    clearTimeout(this.retryTimer);
    this.recentRestarts = [];
    this.crashes = 0;
    this.spawn();
  }

  /**
   * Writes one line to the running child's stdin (`stdin: true`); false when no child is up to take it. A child that
   * closed its stdin is told nothing more: the error is noted, and its exit is what the supervisor acts on.
   */
  writeLine(line: string): boolean {
    const stdin = this.child?.stdin;
    if (!stdin?.writable) return false;
    stdin.write(`${line}\n`);
    return true;
  }

  /** Signals the running child, e.g. SIGKILL for one that hangs: its exit is then handled by the restart policy. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.child?.kill(signal);
  }

  /** Stops it (SIGTERM, SIGKILL after the grace) and keeps it down; resolves once it has exited. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    clearTimeout(this.retryTimer);
    this.restartAt = undefined;
    const { child, exited } = this;
    // One that already ended keeps saying how (exited, crashed); a pending restart is what stopping cancels.
    if (!child || !exited) return void (this._state === 'restarting' && this.setState('stopped'));
    this.setState('stopped');
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(killer);
  }

  private spawn(): void {
    this.restartAt = undefined;
    this.startedAt = Date.now();
    this.setState('starting');
    // The IPC channel carries nothing: its closing tells a Node child that the supervisor is gone.
    const stdio: StdioOptions = [this.spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(this.spec.command === process.execPath ? (['ipc'] as const) : [])];
    const watchFd = this.spec.endWithParent && process.platform !== 'win32' ? stdio.push('pipe') - 1 : undefined;
    const run = watchFd === undefined ? this.spec : endingWithParent(this.spec.command, this.spec.args, watchFd, STOP_GRACE_MS);
    const child = spawn(run.command, [...run.args], { cwd: this.spec.cwd, env: this.spec.env, stdio });
    // Its watcher holds the pipe's other end: letting go once the child has exited ends the watcher (and lets `close` come).
    if (watchFd !== undefined) child.once('exit', () => child.stdio[watchFd]?.destroy());
    this.child = child;
    let spawned = false;
    // Not `events.once`: it rejects on the 'error' a failed spawn (missing command or cwd) emits before its 'close'.
    this.exited = new Promise((resolve) =>
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => resolve(this.handleExit(spawned ? code : null, signal))),
    );
    child.once('spawn', () => {
      spawned = true;
      if (this._state === 'starting') this.setState('running');
    });
    child.on('error', (error) => this.note(`could not run ${this.spec.command}: ${error.message}`));
    child.stdin?.on('error', (error) => this.note(`stdin closed: ${error.message}`));
    this.pipe(child.stdout!, 'stdout');
    this.pipe(child.stderr!, 'stderr');
    this.spec.onSpawn?.(child.pid);
  }

  private handleExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.child = undefined;
    this._lastExit = { code, signal, at: Date.now() };
    if (this._state === 'stopped') return this.spec.onChange?.();
    const how = signal ? `killed by ${signal}` : code === null ? 'could not start' : `exited with ${code}`;
    const failed = code !== 0;
    if (code !== null && code === this.spec.restartNowExitCode) {
      this.note('restart requested: restarting now');
      return this.restart();
    }
    if ((code !== null && this.spec.finalExitCodes?.has(code)) || this.spec.restart === 'never' || (!failed && this.spec.restart === 'on-failure')) {
      this.note(`${how}: not restarting`);
      return this.setState(failed ? 'crashed' : 'exited');
    }
    const now = Date.now();
    this.recentRestarts = this.recentRestarts.filter((at) => now - at < this.backoff.windowMs);
    if (this.recentRestarts.length >= this.backoff.maxRestarts) {
      this.note(`${how}: ${this.backoff.maxRestarts} restarts within ${this.backoff.windowMs / 1000} s, leaving it down`);
      return this.setState('crashed');
    }
    if (now - this.startedAt >= this.backoff.stableUptimeMs) this.crashes = 0;
    const delay = backoffDelay(this.crashes++, this.backoff);
    this.note(`${how}: restarting in ${delay} ms`);
    this.restartAt = now + delay;
    this.setState('restarting');
    this.retryTimer = setTimeout(() => this.restart(), delay);
  }

  private restart(): void {
    this._restarts++;
    this.recentRestarts.push(Date.now());
    this.spawn();
  }

  private setState(state: ProcessState): void {
    this._state = state;
    this.spec.onChange?.();
  }

  private pipe(stream: Readable, kind: 'stdout' | 'stderr'): void {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.spec.output(line, kind));
  }

  private note(message: string): void {
    this.spec.output(message, 'stderr');
  }
}
