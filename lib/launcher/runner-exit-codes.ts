/**
 * Exit codes of the runners the server launches (`run-bridge.ts`, `run-mew-agent.ts`), as sysexits.h names them.
 * Each means "starting again cannot help": the supervisor leaves the process down after it.
 */
export const RUNNER_EXIT_CODES = {
  /** Bad command line or environment (EX_USAGE). */
  usage: 64,
  /** The gateway refused us for good: bad token, kicked, unknown space (EX_NOPERM). */
  refused: 77,
  /** Nothing to run against, e.g. an agent without endpoint or key (EX_CONFIG). */
  notConfigured: 78,
} as const;

/** The codes after which a launched runner is left down. */
export const RUNNER_FINAL_EXIT_CODES: ReadonlySet<number> = new Set(Object.values(RUNNER_EXIT_CODES));
