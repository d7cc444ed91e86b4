import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import type { EnvelopeLogObserver } from '../launcher/envelope-log-observer';
import { SpaceLauncher } from '../launcher/space-launcher';
import { reportCrash, startSpaceProcesses, type DemoSettings } from '../launcher/space-processes';

/** What a node runs for the spaces it owns, as a single gateway does for its spaces. */
export interface OwnerLaunchOptions extends DemoSettings {
  /** The node's `MEW_DATA_DIR`: logs go to `<dataDir>/<space>/logs/`, the demo's sandbox is `<dataDir>/demo/sandbox`. */
  dataDir: string;
}

/**
 * The processes that go with a space's ownership: its launched participants, the demo agents (demo space) and its
 * observers, joining through the owner's own node, started when the node takes the space and stopped when it lets
 * go, so they move with it. Each child ends with its node even on `kill -9` (`endWithServer`): the next owner
 * starts its own, and none of this one's is left reconnecting to a dead node or doubling a participant.
 */
export class OwnerLaunches {
  /** Answers the space's process endpoints. */
  readonly launcher: SpaceLauncher;
  private readonly observers: EnvelopeLogObserver[];
  private stopping?: Promise<void>;

  constructor(
    private readonly config: SpaceConfig,
    space: Space,
    gatewayUrl: string,
    options: OwnerLaunchOptions,
  ) {
    this.launcher = new SpaceLauncher({
      gatewayUrl,
      port: Number(new URL(gatewayUrl).port),
      dataDir: options.dataDir,
      endWithServer: true,
      onChange: reportCrash,
    });
    const lines: string[] = [];
    this.observers = startSpaceProcesses({ ...options, config, space, launcher: this.launcher, gatewayUrl, print: (line) => lines.push(line) });
    if (lines.length > 0) console.log([`[cluster] ${config.id}: owned here now, its processes run here`, ...lines].join('\n'));
  }

  /** Stops them all (SIGTERM, SIGKILL after the launcher's grace); resolves once they have exited. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all(this.observers.map((observer) => observer.stop()));
      await this.launcher.stopAll();
      if (this.launcher.list(this.config.id).length > 0 || this.observers.length > 0) console.log(`[cluster] ${this.config.id}: stopped its processes here`);
    })();
    return this.stopping;
  }
}
