/**
 * `starting`/`running`: a process is up (running once it has stayed up a moment); `restarting`: waiting out a backoff;
 * `crashed`: it failed and is left down (policy, or too many restarts); `exited`: it ended cleanly and is left down;
 * `stopped`: stopped by an operator or the server, or never started.
 */
export type ProcessState = 'starting' | 'running' | 'restarting' | 'crashed' | 'exited' | 'stopped';

/** A launched participant's process as the gateway reports it (the launcher's status, in plain data). */
export interface ProcessView {
  state: ProcessState;
  pid?: number;
  /** Processes started after the first. */
  restarts: number;
  lastExit?: { code: number | null; signal: string | null; at: number };
  /** When the next start is due, while `restarting` (epoch ms). */
  restartAt?: number;
  /** Its newest output lines, tokens redacted. */
  tail: readonly string[];
  logFile: string;
}

/**
 * What the gateway's process endpoints need of whoever runs the participants a config starts (the launcher). Kept
 * here as an interface so the gateway does not depend on how processes are run.
 */
export interface ProcessControl {
  /** The launched participants of a space and their processes. */
  list(space: string): { participantId: string; process: ProcessView }[];
  /** Starts a stopped or ended one; false when the participant is not launched by the server. */
  start(space: string, participantId: string): boolean;
  stop(space: string, participantId: string): Promise<boolean>;
  restart(space: string, participantId: string): Promise<boolean>;
}

/** One process as `GET /api/spaces/{space}/processes` answers it; the log only for those who may control it. */
export type ProcessReport = Omit<ProcessView, 'tail' | 'logFile'> & { participant: string; tail?: readonly string[]; log_file?: string };
