import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeProcess } from '../bridge/bridge-process';
import { filesystemServer } from '../bridge/filesystem-server';
import type { LaunchSpec } from '../launcher/launch-spec';
import { RUNNER_ENV, RUNNER_EXIT_POLICY, runnerConnectionEnv } from '../launcher/runner-convention';
import { FILES_PARTICIPANT_ID } from './demo-defaults';
import { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';
import { sandboxPath, seedSandbox } from './sandbox';

/** The runner each SDK agent executes, and the project root it runs in (where `tsx` resolves). */
const RUN_AGENT_PATH = fileURLToPath(new URL('./run-agent.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface DemoLaunchOptions {
  space: string;
  /** The gateway's data directory: the `files` server's sandbox is `<dataDir>/<space>/sandbox` (seeded here). */
  dataDir: string;
  /** Gap between agent steps. @default DEFAULT_PACE_MS */
  paceMs?: number;
}

/**
 * How the server's launcher runs the demo space's participants, like any config's launched ones: `files` is the
 * official filesystem MCP server on the seeded sandbox through the MCP bridge; `scribe` and `auditor` are SDK agents
 * (`node --import tsx lib/demo/run-agent.ts <name>`), each given its token in its environment by the launcher (the
 * runner convention, `runner-convention.ts`). A crash is restarted with backoff; exit 75 (`participant/restart`) at
 * once; a clean exit or a final code (usage, cannot connect) leaves it down.
 *
 * @example
 * for (const { participantId, spec } of demoLaunchSpecs({ space: 'demo', dataDir: 'data' })) launcher.add('demo', participantId, spec, tokens[participantId]);
 */
export function demoLaunchSpecs(options: DemoLaunchOptions): { participantId: DemoAgentName; spec: LaunchSpec }[] {
  const policy = {
    cwd: PROJECT_ROOT,
    autoStart: true,
    restart: 'on-failure',
    ...RUNNER_EXIT_POLICY,
  } as const;
  return DEMO_AGENT_NAMES.map((participantId) => ({ participantId, spec: { ...policy, ...command(participantId, options) } }));
}

function command(name: DemoAgentName, options: DemoLaunchOptions): Pick<LaunchSpec, 'command' | 'args' | 'env'> {
  // The children run in the project root: a relative data directory must mean what it means to the caller.
  const dataDir = resolve(options.dataDir);
  if (name === FILES_PARTICIPANT_ID) return bridgeProcess(filesystemServer(seedSandbox(sandboxPath(dataDir, options.space))));
  return {
    command: process.execPath,
    args: ['--import', 'tsx', RUN_AGENT_PATH, name],
    env: {
      ...runnerConnectionEnv(),
      [RUNNER_ENV.dataDir]: dataDir,
      ...(options.paceMs !== undefined && { [RUNNER_ENV.demoPaceMs]: String(options.paceMs) }),
    },
  };
}
