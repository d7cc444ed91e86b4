import { join } from 'node:path';
import { demoLaunchSpecs } from '../demo';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import { EnvelopeLogObserver } from './envelope-log-observer';
import { launchedOf } from './launch-config';
import { participantToken, spaceParticipantsToLaunch, type LaunchedStatus, type SpaceLauncher } from './space-launcher';

/** The space whose agents the server runs itself (lib/demo/demo-space.yaml). */
export const DEMO_SPACE_ID = 'demo';

/** Whether the demo space's agents run, and at what pace. */
export interface DemoSettings {
  demo: boolean;
  /** `MEW_DEMO_PACE_MS`. @default the agents' own */
  demoPaceMs?: number;
}

/** `--demo off` (or MEW_DEMO=off) serves the demo space without starting its agents. */
export function demoSettings(argv: string[], env: NodeJS.ProcessEnv): DemoSettings {
  const i = argv.indexOf('--demo');
  const flag = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--demo='))?.slice('--demo='.length);
  return { demo: (flag ?? env.MEW_DEMO ?? 'on') !== 'off', ...(env.MEW_DEMO_PACE_MS && { demoPaceMs: Number(env.MEW_DEMO_PACE_MS) }) };
}

/** A launcher's `onChange` for a server's console: says which process crashed and where its log is. */
export function reportCrash(space: string, participantId: string, status: LaunchedStatus): void {
  if (status.state === 'crashed')
    console.error(`[${space}/${participantId}] crashed (exit ${status.lastExit?.code ?? status.lastExit?.signal}); log: ${status.logFile}`);
}

export interface SpaceProcessesOptions extends DemoSettings {
  config: SpaceConfig;
  space: Space;
  /** Runs the launched participants and the demo agents. */
  launcher: SpaceLauncher;
  /** The gateway's WebSocket endpoint the observers join through. */
  gatewayUrl: string;
  /** Observers' default logs go to `<dataDir>/<space>/logs/`; the demo's sandbox is there too. */
  dataDir: string;
  /** One line for each process started, for the server's console. */
  print(line: string): void;
}

/**
 * Starts what a server runs for a space it serves: the participants its config launches (on `launcher`), the demo
 * agents when it is the demo space and the demo is on, and its observers (`auto_connect: true`), which the caller
 * stops.
 */
export function startSpaceProcesses(options: SpaceProcessesOptions): EnvelopeLogObserver[] {
  const { config, space, launcher, print } = options;
  const demoSpace = config.id === DEMO_SPACE_ID;
  // With the demo off, the demo space is served without any of its processes.
  for (const { participantId, spec, token } of demoSpace && !options.demo ? [] : spaceParticipantsToLaunch(config, space)) {
    launcher.add(config.id, participantId, spec, token);
    const how = spec.notConfigured ? `not started (${spec.notConfigured})` : spec.autoStart ? 'started' : 'ready to start (auto_start: false)';
    print(`  ${config.id}/${participantId}: ${how} (log: ${launcher.status(config.id, participantId)!.logFile})`);
  }

  if (demoSpace && options.demo) {
    const tokens = space.services.records.mintedTokens();
    for (const { participantId, spec } of demoLaunchSpecs({ space: config.id, dataDir: options.dataDir, paceMs: options.demoPaceMs })) {
      if (tokens[participantId]) launcher.add(config.id, participantId, spec, tokens[participantId]);
      else console.error(`  demo participant ${participantId} has no token: not started`);
    }
    print(`  demo agents started (logs: ${join(options.dataDir, config.id, 'logs')})`);
  }

  // The reference's observers: connected by the server, logging what they receive.
  const observers: EnvelopeLogObserver[] = [];
  for (const participant of config.participants) {
    const { id } = participant;
    const { observer } = launchedOf(participant);
    const token = participantToken(config, space, id);
    if (!observer || !token) continue;
    const file = observer.outputLog ?? join(options.dataDir, config.id, 'logs', `${id}.envelopes.jsonl`);
    const started = new EnvelopeLogObserver({ gateway: options.gatewayUrl, space: config.id, token, file });
    observers.push(started);
    void started.start().catch((error: Error) => console.error(`[${config.id}/${id}] observer could not join: ${error.message}`));
    print(`  ${config.id}/${id}: observer, logging what it receives to ${file}`);
  }
  return observers;
}
