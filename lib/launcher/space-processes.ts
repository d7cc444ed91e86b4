import { join } from 'node:path';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import { EnvelopeLogObserver } from './envelope-log-observer';
import { launchedOf } from './launch-config';
import { participantToken, spaceParticipantsToLaunch, type LaunchedStatus, type SpaceLauncher } from './space-launcher';

/** Whether the server starts the participants its configs launch on its own (`auto_start`), or leaves each to its card's Start. */
export interface LaunchSettings {
  /** False: nothing starts on its own, whatever `auto_start` says. @default true */
  autoStart: boolean;
}

/**
 * `--demo off` (or MEW_DEMO=off) serves the spaces without starting their launched participants (the demo's agents
 * among them): each card's Start starts one.
 */
export function launchSettings(argv: string[], env: NodeJS.ProcessEnv): LaunchSettings {
  const i = argv.indexOf('--demo');
  const flag = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--demo='))?.slice('--demo='.length);
  return { autoStart: (flag ?? env.MEW_DEMO ?? 'on') !== 'off' };
}

/** A launcher's `onChange` for a server's console: says which process crashed and where its log is. */
export function reportCrash(space: string, participantId: string, status: LaunchedStatus): void {
  if (status.state === 'crashed')
    console.error(`[${space}/${participantId}] crashed (exit ${status.lastExit?.code ?? status.lastExit?.signal}); log: ${status.logFile}`);
}

export interface SpaceProcessesOptions extends Partial<LaunchSettings> {
  config: SpaceConfig;
  space: Space;
  /** Runs the launched participants. */
  launcher: SpaceLauncher;
  /** The gateway's WebSocket endpoint the observers join through. */
  gatewayUrl: string;
  /** Observers' default logs go to `<dataDir>/<space>/logs/`. */
  dataDir: string;
  /** One line for each process started, for the server's console. */
  print(line: string): void;
}

/**
 * Starts what a server runs for a space it serves: the participants its config launches (on `launcher`) and its
 * observers (`auto_connect: true`), which the caller stops.
 */
export function startSpaceProcesses(options: SpaceProcessesOptions): EnvelopeLogObserver[] {
  const { config, space, launcher, print } = options;
  for (const { participantId, spec: configured, token } of spaceParticipantsToLaunch(config, space)) {
    const spec = options.autoStart === false ? { ...configured, autoStart: false } : configured;
    launcher.add(config.id, participantId, spec, token);
    const how = spec.notConfigured
      ? `not started (${spec.notConfigured})`
      : spec.autoStart
        ? 'started'
        : `ready to start (${configured.autoStart ? '--demo off' : 'auto_start: false'})`;
    print(`  ${config.id}/${participantId}: ${how} (log: ${launcher.status(config.id, participantId)!.logFile})`);
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
