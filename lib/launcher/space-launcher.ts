import { join, resolve } from 'node:path';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import type { ProcessControl, ProcessView } from './process-control';
import { expand, type ServerVariable } from './env-template';
import { launchedOf } from './launch-config';
import type { LaunchSpec } from './launch-spec';
import { ProcessLog } from './process-log';
import { SupervisedProcess, type RestartBackoff } from './supervised-process';

/** Where the server is, for the `${GATEWAY}` and `${PORT}` a launched participant is given. */
export interface LauncherOptions {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws`. */
  gatewayUrl: string;
  port: number;
  /** Logs go to `<dataDir>/<space>/logs/<participant>.log`. */
  dataDir: string;
  /** The server's environment: inherited by each process, and what `${NAME}` reads. @default process.env */
  env?: NodeJS.ProcessEnv;
  backoff?: Partial<RestartBackoff>;
  /** End each process when the server dies, even by SIGKILL, so none outlives it (`endingWithParent`). @default false */
  endWithServer?: boolean;
  /** Told when any launched participant changes state. */
  onChange?(space: string, participantId: string, status: LaunchedStatus): void;
}

/** A launched participant as an operator sees it (`stopped`, with no pid, before its first start). */
export type LaunchedStatus = ProcessView;

interface Registered {
  spec: LaunchSpec;
  token: string;
  log: ProcessLog;
  /** Created at the first start. */
  process?: SupervisedProcess;
}

/**
 * Starts and supervises the participants a space config says how to run (`command`, `args`, `env`, `cwd`,
 * `restart`): each joins with the token the server gives it in `${TOKEN}`, its output goes to its own log, and it
 * is restarted by its policy. One launcher serves every space of the server, and answers the gateway's process
 * endpoints (start, stop, restart by an operator).
 *
 * @example
 * const launcher = new SpaceLauncher({ gatewayUrl: 'ws://127.0.0.1:3000/ws', port: 3000, dataDir: 'data' });
 * launcher.add('team', 'coder', config.launch, token); // started now when auto_start
 * await launcher.stopAll();
 */
export class SpaceLauncher implements ProcessControl {
  private readonly registered = new Map<string, Map<string, Registered>>();

  constructor(private readonly options: LauncherOptions) {}

  /** Knows a participant from now on, and starts it when its spec says `autoStart` (and it is configured). */
  add(space: string, participantId: string, spec: LaunchSpec, token: string): void {
    const log = new ProcessLog(join(this.options.dataDir, space, 'logs', `${participantId}.log`), [token]);
    let participants = this.registered.get(space);
    if (!participants) this.registered.set(space, (participants = new Map()));
    participants.set(participantId, { spec, token, log });
    // One that can only fail is not started; its log (and so its card) says why.
    if (spec.notConfigured) log.write(`${spec.notConfigured}: not started`);
    else if (spec.autoStart) this.start(space, participantId);
  }

  /** Starts a known participant's process (again, if it has ended or was stopped); false if unknown. */
  start(space: string, participantId: string): boolean {
    const entry = this.registered.get(space)?.get(participantId);
    if (!entry) return false;
    if (entry.process) entry.process.start();
    else entry.process = this.spawn(space, participantId, entry);
    return true;
  }

  /** Stops one participant's process and keeps it down until started again; false if unknown. */
  async stop(space: string, participantId: string): Promise<boolean> {
    const entry = this.registered.get(space)?.get(participantId);
    if (!entry) return false;
    await entry.process?.stop();
    return true;
  }

  /** Stops and starts it again (a fresh process, backoff reset). */
  async restart(space: string, participantId: string): Promise<boolean> {
    return (await this.stop(space, participantId)) && this.start(space, participantId);
  }

  status(space: string, participantId: string): LaunchedStatus | undefined {
    const entry = this.registered.get(space)?.get(participantId);
    if (!entry) return undefined;
    const process = entry.process?.status ?? { state: 'stopped' as const, restarts: 0 };
    return { ...process, logFile: entry.log.file, tail: entry.log.tail.toArray() };
  }

  list(space: string): { participantId: string; process: LaunchedStatus }[] {
    return [...(this.registered.get(space)?.keys() ?? [])].map((participantId) => ({ participantId, process: this.status(space, participantId)! }));
  }

  /** Stops every process, and resolves once they have exited and their logs are written. */
  async stopAll(): Promise<void> {
    const entries = [...this.registered.values()].flatMap((participants) => [...participants.values()]);
    await Promise.all(
      entries.map(async ({ process, log }) => {
        await process?.stop();
        log.flush();
      }),
    );
  }

  private spawn(space: string, participantId: string, { spec, token, log }: Registered): SupervisedProcess {
    const env = this.options.env ?? process.env;
    const server: Record<ServerVariable, string> = {
      TOKEN: token,
      GATEWAY: this.options.gatewayUrl,
      SPACE: space,
      PORT: String(this.options.port),
      PARTICIPANT_ID: participantId,
      DATA_DIR: resolve(this.options.dataDir),
      NODE: process.execPath,
    };
    const fill = (template: string) => expand(template, server, env);
    return new SupervisedProcess({
      name: participantId,
      command: fill(spec.command),
      args: spec.args.map(fill),
      cwd: spec.cwd,
      env: { ...env, ...Object.fromEntries(Object.entries(spec.env).map(([name, value]) => [name, fill(value)])) },
      restart: spec.restart,
      backoff: this.options.backoff,
      finalExitCodes: spec.finalExitCodes,
      restartNowExitCode: spec.restartNowExitCode,
      endWithParent: this.options.endWithServer,
      output: (line) => log.write(line),
      onChange: () => queueMicrotask(() => this.options.onChange?.(space, participantId, this.status(space, participantId)!)),
    });
  }
}

/** The launch spec and token of each participant of a served space the server may start (not kicked, with a token); `autoStart` says whether now. */
export function spaceParticipantsToLaunch(config: SpaceConfig, space: Space): { space: string; participantId: string; spec: LaunchSpec; token: string }[] {
  return config.participants.flatMap((pc) => {
    const token = participantToken(config, space, pc.id);
    const kicked = space.state.kicked.includes(pc.id);
    const { launch } = launchedOf(pc);
    return launch && token && !kicked ? [{ space: config.id, participantId: pc.id, spec: launch, token }] : [];
  });
}

/** A participant's token: the config's first, else the one the gateway minted. */
export function participantToken(config: SpaceConfig, space: Space, participantId: string): string | undefined {
  return config.participants.find((p) => p.id === participantId)?.tokens?.[0] ?? space.services.records.mintedTokens()[participantId];
}
