import { RUNNER_EXIT_CODES } from '../launcher/runner-exit-codes';
import type { AgentExit } from './agent-runtime';

/**
 * Exit codes of `run-agent.ts`, and what the supervisor does with each (sysexits.h values where one fits).
 * Any other code, or death by a signal, is a crash: restarted with exponential backoff.
 */
export const AGENT_EXIT_CODES = {
  /** Stopped on purpose (SIGTERM/SIGINT): not restarted. */
  stopped: 0,
  /** Bad command line or environment (EX_USAGE): restarting cannot help, not restarted. */
  usage: RUNNER_EXIT_CODES.usage,
  /** The agent's own loop failed (EX_SOFTWARE): a crash, restarted with backoff. */
  crashed: 70,
  /** `participant/restart` asked for a fresh start (EX_TEMPFAIL): restarted at once. */
  restartRequested: 75,
  /** The gateway refused us for good: bad token, kicked, unknown space (EX_NOPERM): not restarted. */
  connectionRefused: RUNNER_EXIT_CODES.refused,
} as const;

/** Codes after which the supervisor leaves the agent down. */
export const FINAL_EXIT_CODES: ReadonlySet<number> = new Set([AGENT_EXIT_CODES.stopped, AGENT_EXIT_CODES.usage, AGENT_EXIT_CODES.connectionRefused]);

/** The exit code for why an agent ended. */
export function exitCodeFor(exit: AgentExit): number {
  switch (exit) {
    case 'stopped':
      return AGENT_EXIT_CODES.stopped;
    case 'restart':
      return AGENT_EXIT_CODES.restartRequested;
    case 'connection-refused':
      return AGENT_EXIT_CODES.connectionRefused;
    case 'crashed':
      return AGENT_EXIT_CODES.crashed;
  }
}
