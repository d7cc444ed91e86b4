// The processes API: the participants the server launches and their processes (`GET /api/spaces/{space}/processes`,
// `POST …/processes/{participant}/start|stop|restart`).

/**
 * `starting`/`running`: a process is up (running once it has stayed up a moment); `restarting`: waiting out a backoff;
 * `crashed`: it failed and is left down (policy, or too many restarts); `exited`: it ended cleanly and is left down;
 * `stopped`: stopped by an operator or the server, or never started.
 */
export type ProcessState = 'starting' | 'running' | 'restarting' | 'crashed' | 'exited' | 'stopped';

/** What an operator may do to a launched participant's process: `POST …/processes/{participant}/{action}`. */
export type ProcessAction = 'start' | 'stop' | 'restart';

/** How a launched participant's process is doing, in plain data. */
export interface ProcessStatus {
  state: ProcessState;
  pid?: number;
  /** Processes started after the first. */
  restarts: number;
  lastExit?: { code: number | null; signal: string | null; at: number };
  /** When the next start is due, while `restarting` (epoch ms). */
  restartAt?: number;
}

/**
 * One process as `GET /api/spaces/{space}/processes` (`{processes: ProcessReport[]}`) lists it and an action's 202
 * answers it; its newest output lines (tokens redacted) and log file only for those who may control it.
 */
export interface ProcessReport extends ProcessStatus {
  participant: string;
  tail?: readonly string[];
  log_file?: string;
}

/** The body of `GET /api/spaces/{space}/processes`. */
export interface ProcessList {
  processes: ProcessReport[];
}
