import { join } from 'node:path';
import type { GatewayServer } from '../gateway/gateway-server';
import { expand, type ServerVariable } from './env-template';
import type { LaunchSpec } from './launch-spec';
import { ProcessLog } from './process-log';
import { SupervisedProcess, type Backoff, type ProcessStatus } from './supervised-process';

/** Where the server is, for the `${GATEWAY}` and `${PORT}` a launched participant is given. */
export interface LauncherOptions {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws`. */
  gatewayUrl: string;
  port: number;
  /** Logs go to `<dataDir>/<space>/logs/<participant>.log`. */
  dataDir: string;
  /** The server's environment: inherited by each process, and what `${NAME}` reads. @default process.env */
  env?: NodeJS.ProcessEnv;
  backoff?: Partial<Backoff>;
  /** Told when any launched participant changes state. */
  onChange?(space: string, participantId: string, status: LaunchedStatus): void;
}

/** A launched participant as an operator sees it. */
export interface LaunchedStatus extends ProcessStatus {
  logFile: string;
  /** Its newest output lines (tokens redacted), e.g. why it crashed. */
  tail: readonly string[];
}

interface Launched {
  process: SupervisedProcess;
  log: ProcessLog;
}

/**
 * Starts and supervises the participants a space config says how to run (`command`, `args`, `env`, `cwd`,
 * `restart`): each joins with the token the server gives it in `${TOKEN}`, its output goes to its own log, and it
 * is restarted by its policy. One launcher serves every space of the server.
 *
 * @example
 * const launcher = new SpaceLauncher({ gatewayUrl: 'ws://127.0.0.1:3000/ws', port: 3000, dataDir: 'data' });
 * launcher.start('team', 'coder', config.launch, token);
 * await launcher.stopAll();
 */
export class SpaceLauncher {
  private readonly launched = new Map<string, Launched>();

  constructor(private readonly options: LauncherOptions) {}

  /** Starts a participant's process (again, if it was started before and has ended). */
  start(space: string, participantId: string, spec: LaunchSpec, token: string): void {
    const key = keyOf(space, participantId);
    const existing = this.launched.get(key);
    if (existing) return existing.process.start();
    const env = this.options.env ?? process.env;
    const server: Record<ServerVariable, string> = {
      TOKEN: token,
      GATEWAY: this.options.gatewayUrl,
      SPACE: space,
      PORT: String(this.options.port),
      PARTICIPANT_ID: participantId,
    };
    const fill = (template: string) => expand(template, server, env);
    const log = new ProcessLog(join(this.options.dataDir, space, 'logs', `${participantId}.log`), [token]);
    const launched: Launched = {
      log,
      process: new SupervisedProcess({
        name: participantId,
        command: fill(spec.command),
        args: spec.args.map(fill),
        cwd: spec.cwd,
        env: { ...env, ...Object.fromEntries(Object.entries(spec.env).map(([name, value]) => [name, fill(value)])) },
        restart: spec.restart,
        backoff: this.options.backoff,
        output: (line) => log.write(line),
        onChange: () => queueMicrotask(() => this.options.onChange?.(space, participantId, this.status(space, participantId)!)),
      }),
    };
    this.launched.set(key, launched);
  }

  status(space: string, participantId: string): LaunchedStatus | undefined {
    const launched = this.launched.get(keyOf(space, participantId));
    return launched && { ...launched.process.status, logFile: launched.log.file, tail: launched.log.tail.toArray() };
  }

  /** Stops one participant's process and keeps it down until started again. */
  async stop(space: string, participantId: string): Promise<void> {
    await this.launched.get(keyOf(space, participantId))?.process.stop();
  }

  /** Stops every process, and resolves once they have exited and their logs are written. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.launched.values()].map(async ({ process, log }) => {
        await process.stop();
        log.flush();
      }),
    );
  }
}

function keyOf(space: string, participantId: string): string {
  return `${space}\u0000${participantId}`;
}

/** The launch spec and token of each participant a server should start now (auto-start, not kicked, with a token). */
export function participantsToLaunch(server: GatewayServer): { space: string; participantId: string; spec: LaunchSpec; token: string }[] {
  return server.configs.flatMap((config) => {
    const space = server.gateway.spaces.get(config.id);
    if (!space) return [];
    return config.participants.flatMap((pc) => {
      const token = pc.tokens?.[0] ?? space.services.records.mintedTokens()[pc.id];
      const kicked = space.state.kicked.includes(pc.id);
      return pc.launch?.autoStart && token && !kicked ? [{ space: config.id, participantId: pc.id, spec: pc.launch, token }] : [];
    });
  });
}
