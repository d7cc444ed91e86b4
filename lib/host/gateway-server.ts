import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AuditLog } from '../gateway/audit';
import { createAuditRoute } from '../gateway/audit-api';
import { Gateway } from '../gateway/gateway';
import type { GatewayLimits } from '../gateway/gateway-options';
import type { HistoryStore } from '../gateway/history-store';
import { createHttpApi } from '../gateway/http-api';
import { HttpListener } from '../gateway/http-listener';
import { localSessions } from '../gateway/local-session-host';
import { MemoryHistoryStore } from '../gateway/memory-history-store';
import { GatewayDatabase, type Durability } from '../gateway/persistence/gateway-database';
import { PersistenceError } from '../gateway/persistence/persistence-error';
import { SqliteHistoryStore } from '../gateway/persistence/sqlite-history-store';
import { loadSpaceConfig, type SpaceConfig } from '../gateway/space-config';
import { createWsTransport } from '../gateway/ws-transport';
import { configSections, type SpaceFeature } from './space-feature';
import { SpaceHost, hostRoutes } from './space-host';
import { sqliteHostStorage } from './sqlite-host-storage';

export interface GatewayServerOptions {
  /** Space config files (YAML or JSON). */
  configPaths?: string[];
  /** Spaces built in code (tests, read with the features' `configSections`), in addition to the files. */
  spaces?: SpaceConfig[];
  dataDir?: string;
  /** When the data directory would be refused, move its database aside (renamed, never deleted) and start a new one: `MEW_START_FRESH=1`. */
  startFresh?: boolean;
  /** What an acknowledged envelope survives (`MEW_DURABILITY`). @default 'process' */
  durability?: Durability;
  /** Where numbered history outlives the process (tests hand one store to successive gateways). */
  history?: HistoryStore;
  limits?: Partial<GatewayLimits>;
  /** What each space runs beside the gateway core (`serverFeatures`), started once the server listens. @default none */
  features?: readonly SpaceFeature[];
  /** Requests the gateway does not serve (the Next app). Default: a JSON 404. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Upgrades on other paths: in dev, Next's HMR listener handles them itself, so they must be left alone. */
  leaveOtherUpgrades?: boolean;
  /** Where the features' lines go. @default console.log */
  log?: (line: string) => void;
}

export interface GatewayServer {
  server: Server;
  gateway: Gateway;
  audit: AuditLog;
  /** The space configs it serves (launched participants' specs among them). */
  configs: readonly SpaceConfig[];
  /** Each space's host, once listening. */
  readonly hosts: ReadonlyMap<string, SpaceHost>;
  /** A space's host; throws before `listen` or for a space it does not serve. */
  host(space: string): SpaceHost;
  /** Listens, then starts every space's host; resolves with the bound port (use port 0 in tests). */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * A single-process server: one gateway for all its spaces, the HTTP API and `/ws`, and a `SpaceHost` per space
 * running the registered features; everything else is handed to `fallback`. A cluster node builds the same host
 * for each space it owns (`SpaceOwner`).
 */
export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  const sections = configSections(options.features ?? []);
  const spaces = [...(options.configPaths ?? []).map((p) => loadSpaceConfig(p, { sections })), ...(options.spaces ?? [])];
  // One database for all spaces of this gateway (tokens, state, history, audit, the features' tables); in memory without a data directory.
  const database = GatewayDatabase.open(options.dataDir, { startFresh: options.startFresh, durability: options.durability });
  let audit: AuditLog;
  try {
    // On the database's own connection, so a security-state change and its audit record commit together.
    audit = AuditLog.attach(database.db, {
      onError: (e) => console.error('[audit] write failed, will retry:', e.message),
    });
  } catch (e) {
    database.close();
    throw new PersistenceError(database.file, `cannot open the audit log: ${(e as Error).message}`, { cause: e });
  }
  // The audit log's queue is written with each turn's history, so what a client was shown is audited after a crash too.
  const history = options.history ?? (options.dataDir ? new SqliteHistoryStore(database, { alsoCommit: () => audit.flush() }) : new MemoryHistoryStore());
  let wsUrl = 'ws://127.0.0.1/ws';
  let gateway: Gateway;
  try {
    gateway = new Gateway({ spaces, database, history, limits: options.limits, audit, connectionUrl: () => wsUrl });
  } catch (e) {
    audit.close();
    database.close();
    throw e;
  }
  const hosts = new Map<string, SpaceHost>();
  const http = createHttpApi(gateway, [createAuditRoute(gateway, audit), hostRoutes((space) => hosts.get(gateway.resolveSpace(space)?.id ?? ''))]);
  const ws = createWsTransport(localSessions(gateway), history);
  const listener = new HttpListener({
    handle: http,
    upgrade: (req, socket, head) => ws.handleUpgrade(req, socket, head),
    fallback: options.fallback,
    leaveOtherUpgrades: options.leaveOtherUpgrades,
  });
  const storage = sqliteHostStorage(database.db);
  const log = options.log ?? ((line: string) => console.log(line));

  return {
    server: listener.server,
    gateway,
    audit,
    configs: spaces,
    hosts,
    host: (id) => {
      const host = hosts.get(id);
      if (!host) throw new TypeError(`no host for space "${id}" (not served, or not listening yet)`);
      return host;
    },
    listen: async (port, hostname) => {
      const bound = await listener.listen(port, hostname);
      wsUrl = bound.wsUrl;
      for (const config of spaces) {
        const space = gateway.spaces.get(config.id)!;
        const context = { config, space, gateway, database, audit, storage, gatewayUrl: bound.wsUrl, httpUrl: bound.httpUrl, log };
        hosts.set(config.id, await SpaceHost.start(context, options.features ?? []));
      }
      return bound.port;
    },
    close: async () => {
      await Promise.all([...hosts.values()].map((host) => host.stop()));
      await ws.close();
      for (const space of gateway.spaces.values()) space.cancelTimers();
      await listener.close();
      await history.close(); // everything written: the next start continues this numbering
      audit.close(); // flushes: nothing recorded is lost on a clean shutdown
      database.close();
    },
  };
}
