import type { ProcessStatus } from '../protocol';

/**
 * A launched participant's process as the launcher tells the gateway (its status, in plain data); the processes API
 * reports it as a `ProcessReport` (lib/protocol).
 */
export interface ProcessView extends ProcessStatus {
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
