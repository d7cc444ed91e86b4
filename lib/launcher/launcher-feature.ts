import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import type { EnvelopeLogObserver } from './envelope-log-observer';
import { LAUNCH_SECTION } from './launch-config';
import { createProcessRoute } from './process-api';
import { SpaceLauncher } from './space-launcher';
import { reportCrash, startSpaceProcesses, type LaunchSettings } from './space-processes';

export interface LauncherFeatureOptions extends Partial<LaunchSettings> {
  /** The server's `MEW_DATA_DIR` (`${DATA_DIR}` in commands): logs go to `<dataDir>/<space>/logs/`. */
  dataDir: string;
}

/** The processes of one space as they run (tests reach the launcher; none when the server runs no processes). */
export interface RunningProcesses extends RunningFeature {
  readonly launcher?: SpaceLauncher;
}

/**
 * The processes a space runs: the participants its config launches and its observers,
 * joining through this server, with the processes API (`/api/spaces/{space}/processes`). Started with the space's
 * host and stopped with it, so in a cluster they move with the space; each child ends with its server even on
 * `kill -9`, so a restarted server or the next owner starts its own and none is left doubling a participant.
 * Without options the server runs nothing (tests), and the API lists nothing.
 */
export function launcherFeature(options?: LauncherFeatureOptions): SpaceFeature {
  return {
    name: 'processes',
    config: LAUNCH_SECTION,
    start(context): RunningProcesses {
      const { config, space, gatewayUrl } = context;
      if (!options) return { routes: [createProcessRoute(context.gateway, context.audit, () => undefined)], stop: () => undefined };
      const launcher = new SpaceLauncher({
        gatewayUrl,
        port: Number(new URL(gatewayUrl).port),
        dataDir: options.dataDir,
        endWithServer: true,
        onChange: reportCrash,
      });
      const lines: string[] = [];
      const observers: EnvelopeLogObserver[] = startSpaceProcesses({ ...options, config, space, launcher, gatewayUrl, print: (line) => lines.push(line) });
      if (lines.length > 0) context.log(lines.join('\n'));
      let stopping: Promise<void> | undefined;
      const stop = () =>
        (stopping ??= (async () => {
          await Promise.all(observers.map((observer) => observer.stop()));
          await launcher.stopAll();
        })());
      return { launcher, routes: [createProcessRoute(context.gateway, context.audit, () => launcher)], release: stop, stop };
    },
  };
}
