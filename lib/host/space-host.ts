import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { decodePathSegment } from '../gateway/http-util';
import { createTables } from './change-record';
import { inProcessTransport } from './in-process-transport';
import type { RunningFeature, SpaceFeature, SpaceHostContext } from './space-feature';

/**
 * Everything one space runs beside the gateway core, built by one function (`SpaceHost.start`) in a single process
 * and in a cluster owner alike: each registered feature's tables, its routes, and what it runs (the rule supervisor,
 * launched processes, notifications…). Only the context's storage tells the two apart.
 */
export class SpaceHost {
  /** Every feature's routes, in the order the features were registered. */
  readonly routes: readonly HttpRoute[];
  private stopping?: Promise<void>;

  private constructor(
    readonly context: SpaceHostContext,
    private readonly running: ReadonlyMap<string, RunningFeature>,
  ) {
    this.routes = [...running.values()].flatMap((feature) => feature.routes ?? []);
  }

  /**
   * Creates every feature's tables, fills them from the storage (a cluster owner's takeover), then starts the
   * features in order. A feature that fails to start is logged and left out: the space is served all the same
   * (giving it up would only move the failure to the next owner).
   */
  static async start(base: Omit<SpaceHostContext, 'feature' | 'join'>, features: readonly SpaceFeature[]): Promise<SpaceHost> {
    const names = new Set<string>();
    for (const { name } of features) {
      if (names.has(name)) throw new TypeError(`feature "${name}" is registered twice`);
      names.add(name);
    }
    const running = new Map<string, RunningFeature>();
    const context: SpaceHostContext = {
      ...base,
      join: inProcessTransport(base.gateway),
      feature: <T extends RunningFeature>(name: string) => running.get(name) as T | undefined,
    };
    const tables = features.flatMap((feature) => feature.tables ?? []);
    createTables(context.database.db, tables);
    await context.storage.load(tables);
    for (const feature of features) {
      try {
        running.set(feature.name, await feature.start(context));
      } catch (error) {
        context.log(`[${context.config.id}] ${feature.name} could not start: ${(error as Error).stack ?? error}`);
      }
    }
    return new SpaceHost(context, running);
  }

  get id(): string {
    return this.context.space.id;
  }

  /** A running feature, by its name (what it is depends on the feature). */
  feature<T extends RunningFeature = RunningFeature>(name: string): T | undefined {
    return this.running.get(name) as T | undefined;
  }

  /** The names of the features running, in order. */
  get features(): string[] {
    return [...this.running.keys()];
  }

  /** A clean handover: every feature settles (launched processes exit), then all stop. */
  async release(): Promise<void> {
    await Promise.all([...this.running.values()].map((feature) => feature.release?.()));
    await this.stop();
  }

  /** Stops every feature, the last registered first (what depends on another stops before it). */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const feature of [...this.running.values()].reverse()) {
        try {
          await feature.stop();
        } catch (error) {
          this.context.log(`[${this.id}] a feature did not stop cleanly: ${(error as Error).message}`);
        }
      }
      this.context.storage.close();
    })();
    return this.stopping;
  }
}

/** `/api/spaces/{space}/…` and `/mcp/{space}`. */
const SPACE_IN_PATH = /^\/(?:api\/spaces\/([^/]+)\/|mcp\/([^/]+)\/?$)/;

/**
 * Hands a request to the routes of the host of the space it is about: the space in its path
 * (`/api/spaces/{space}/…`, `/mcp/{space}`), else its `?space=`, else the default space (`/api/push/public-key`, `/mcp`).
 */
export function hostRoutes(hostOf: (space: string | null) => SpaceHost | undefined): HttpRoute {
  return async (req, res, url) => {
    const found = SPACE_IN_PATH.exec(url.pathname);
    const inPath = found?.[1] ?? found?.[2];
    const space = inPath === undefined ? url.searchParams.get('space') : decodePathSegment(inPath);
    const host = hostOf(space);
    if (!host) {
      if (inPath !== undefined) throw new GatewayError('unknown_space', `no space "${space}"`);
      return false;
    }
    for (const route of host.routes) if (await route(req, res, url)) return true;
    return false;
  };
}
