import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { AuditLog } from './audit';
import { createAuditRoute } from './audit-api';
import { createBudgetRoute } from './budget-api';
import { Gateway } from './gateway';
import type { GatewayLimits } from './gateway-options';
import type { HistoryStore } from './history-store';
import { createHttpApi } from './http-api';
import { createProcessRoute } from './process-api';
import { createRulesRoute } from './rules-api';
import { RuleRecords } from './persistence/rule-records';
import type { ProcessControl } from './process-control';
import { MemoryHistoryStore } from './memory-history-store';
import { DURABILITY_LEVELS, GatewayDatabase, START_FRESH_ENV, type Durability } from './persistence/gateway-database';
import { PersistenceError } from './persistence/persistence-error';
import { SqliteHistoryStore } from './persistence/sqlite-history-store';
import { answerClientError, sendError } from './http-util';
import { loadSpaceConfig, type SpaceConfig } from './space-config';
import { createWsTransport } from './ws-transport';
import { localSessions } from './local-session-host';
import { Notifications, type NotifyOptions } from '../notify/notifications';

/** The WebSocket path of the gateway. Nothing else (no page, no rewrite) may use it. */
export const GATEWAY_WS_PATH = '/ws';

export interface GatewayServerOptions {
  /** Space config files (YAML or JSON). */
  configPaths?: string[];
  /** Spaces built in code (tests), in addition to the files. */
  spaces?: SpaceConfig[];
  dataDir?: string;
  /** When the data directory would be refused, move its database aside (renamed, never deleted) and start a new one: `MEW_START_FRESH=1`. */
  startFresh?: boolean;
  /** What an acknowledged envelope survives (`MEW_DURABILITY`). @default 'process' */
  durability?: Durability;
  /** Where numbered history outlives the process (tests hand one store to successive gateways). */
  history?: HistoryStore;
  limits?: Partial<GatewayLimits>;
  /** Requests the gateway does not serve (the Next app). Default: a JSON 404. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Upgrades on other paths: in dev, Next's HMR listener handles them itself, so they must be left alone. */
  leaveOtherUpgrades?: boolean;
  /** Web Push and webhooks (tests move the clock and shorten retries). */
  notify?: NotifyOptions;
}

export interface GatewayServer {
  server: Server;
  gateway: Gateway;
  audit: AuditLog;
  notifications: Notifications;
  /** The space configs it serves (launched participants' specs among them). */
  configs: readonly SpaceConfig[];
  /** Resolves with the bound port (use port 0 in tests). */
  listen(port: number, host: string): Promise<number>;
  /** Serves the process endpoints (`/api/spaces/{space}/processes`) from whoever runs the launched participants. */
  useProcesses(control: ProcessControl): void;
  /** A space's approval rules, as stored. */
  rules(space: string): RuleRecords;
  /**
   * Told when a space's rules change through the API; returns the way to stop listening. The API answers once
   * what the listener returns has settled (a few seconds at most): a supervisor applying the change.
   */
  onRulesChanged(listener: (space: string) => void | Promise<unknown>): () => void;
  close(): Promise<void>;
}

/** An HTTP server carrying the gateway's HTTP API and `/ws`, with everything else handed to `fallback`. */
export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  let wsUrl = 'ws://127.0.0.1/ws';
  const spaces = [...(options.configPaths ?? []).map((p) => loadSpaceConfig(p)), ...(options.spaces ?? [])];
  // One database for all spaces of this gateway (tokens, state, history, audit); in memory without a data directory.
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
  let gateway: Gateway;
  let notifications: Notifications;
  try {
    gateway = new Gateway({ spaces, database, history, limits: options.limits, audit, connectionUrl: () => wsUrl });
    notifications = new Notifications(gateway, database, audit, () => wsUrl.replace(/^ws/, 'http').slice(0, -GATEWAY_WS_PATH.length), options.notify);
  } catch (e) {
    audit.close();
    database.close();
    throw e;
  }
  let processes: ProcessControl | undefined;
  const rulesListeners = new Set<(space: string) => void | Promise<unknown>>();
  const http = createHttpApi(gateway, [
    createAuditRoute(gateway, audit),
    createBudgetRoute(gateway),
    createProcessRoute(gateway, audit, () => processes),
    createRulesRoute(
      gateway,
      (space) => new RuleRecords(database, space),
      audit,
      (space) => Promise.all([...rulesListeners].map((listener) => listener(space))),
    ),
    ...notifications.routes,
  ]);
  const ws = createWsTransport(localSessions(gateway), history);
  const fallback = options.fallback ?? ((_req, res) => sendError(res, 'not_found', 'no such endpoint'));

  const server = createServer((req, res) => {
    http(req, res).then(
      (handled) => {
        if (!handled) fallback(req, res);
      },
      (e) => {
        console.error('[gateway] request failed:', e);
        if (!res.headersSent) sendError(res, 'internal_error', 'request failed');
      },
    );
  });
  server.on('clientError', answerClientError);
  server.on('upgrade', (req, socket, head) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === GATEWAY_WS_PATH) ws.handleUpgrade(req, socket, head);
    // In production nobody else answers upgrades, so an unanswered socket would hang forever.
    else if (!options.leaveOtherUpgrades) socket.destroy();
  });

  return {
    server,
    gateway,
    audit,
    notifications,
    configs: spaces,
    listen: (port, host) =>
      new Promise((resolvePort, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address();
          const bound = typeof address === 'object' && address ? address.port : port;
          wsUrl = `ws://${host.includes(':') ? `[${host}]` : host}:${bound}${GATEWAY_WS_PATH}`;
          resolvePort(bound);
        });
      }),
    useProcesses: (control) => {
      processes = control;
    },
    rules: (space) => new RuleRecords(database, space),
    onRulesChanged: (listener) => {
      rulesListeners.add(listener);
      return () => rulesListeners.delete(listener);
    },
    close: async () => {
      await ws.close();
      await notifications.close();
      for (const space of gateway.spaces.values()) space.cancelTimers();
      await new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      });
      await history.close(); // everything written: the next start continues this numbering
      audit.close(); // flushes: nothing recorded is lost on a clean shutdown
      database.close();
    },
  };
}

/**
 * Settings from the environment: PORT, HOST (loopback by default), MEW_SPACE_CONFIG (comma-separated), MEW_DATA_DIR,
 * MEW_START_FRESH=1 (start over on purpose when the data directory is refused: its database is moved aside, never
 * deleted), MEW_DURABILITY (`process`, the default, or `power`).
 */
export function gatewayEnv(projectRoot: string, env: NodeJS.ProcessEnv = process.env) {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    configPaths: (env.MEW_SPACE_CONFIG ?? resolve(projectRoot, 'lib/demo/demo-space.yaml')).split(',').map((p) => resolve(p.trim())),
    dataDir: resolve(env.MEW_DATA_DIR ?? resolve(projectRoot, 'data')),
    startFresh: env[START_FRESH_ENV] === '1',
    durability: durabilityOf(env.MEW_DURABILITY),
  };
}

/** An environment setting the server cannot use; its message is the one line to print. */
export class SettingsError extends Error {}

function durabilityOf(value: string | undefined): Durability {
  if (value === undefined || value === '') return 'process';
  if ((DURABILITY_LEVELS as readonly string[]).includes(value)) return value as Durability;
  throw new SettingsError(`MEW_DURABILITY must be one of ${DURABILITY_LEVELS.join(', ')}, not "${value}"`);
}
