import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { formatCursor, type HistoryPosition } from '../gateway/history-cursor';
import { resolveLimits, type GatewayLimits } from '../gateway/gateway-options';
import { GATEWAY_WS_PATH, HttpListener } from '../gateway/http-listener';
import { healthReport } from '../gateway/http-api';
import type { SpaceFeature } from '../host/space-feature';
import type { SpaceHost } from '../host/space-host';
import { OutboundMessage } from '../gateway/outbound-message';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import { decodePathSegment, sendError, sendJson } from '../gateway/http-util';
import type { GatewayError } from '../gateway/gateway-error';
import type { WsConnection } from '../gateway/ws-connection';
import {
  createWsTransport,
  refusalFrame,
  type BindOptions,
  type TransportSession,
  type WsCredentials,
  type WsSpace,
  type WsTransport,
} from '../gateway/ws-transport';
import type { Envelope } from '../protocol';
import { CLOSE_CODES, HISTORY_START_CURSOR } from '../protocol';
import { clusterKeys } from './cluster-keys';
import {
  ACCEPT_RESTORE_ENV,
  defaultNodeId,
  EVERY_SPACE,
  HEARTBEAT_MS,
  LEASE_RENEW_MS,
  LEASE_RETRY_MS,
  NODE_TTL_MS,
  READ_BLOCK_MS,
  READ_COUNT,
  spacesFromEnv,
  START_OVER_ENV,
  TRIM_EVERY_READS,
  WRITE_RETRY_MS,
  type ClusterOptions,
} from './cluster-options';
import {
  decodeOutboxEntry,
  encodeInboxEntry,
  PACKED_FIELD,
  parseDeliveryHeader,
  unpackEntry,
  type InboxEntry,
  type OutboxControl,
  type OutboxDelivery,
} from './cluster-wire';
import { packFields } from './packed-fields';
import { MAX_ENTRY_FIELDS, type FenceLoss, type LocalItem } from './fenced-writer';
import { openRedis, reportCommandFailure, type RedisReportOptions } from './redis-connection';
import { SpaceLease } from './space-lease';
import { SpaceOwner, SpaceStateLostError } from './space-owner';

export interface ClusterNodeOptions extends ClusterOptions {
  spaces: SpaceConfig[];
  limits?: Partial<GatewayLimits>;
  /** Requests the node does not serve (the Next app). Default: a JSON 404. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Upgrades on other paths are left to another listener (Next's HMR in dev). */
  leaveOtherUpgrades?: boolean;
  /** What each space runs beside the gateway core (`serverFeatures`), started on the node that owns it. @default none */
  features?: readonly SpaceFeature[];
  /** How this node reports a Redis outage (how often, where to). @default every 30 s, console.error */
  redisReport?: RedisReportOptions;
}

/** Paths of the gateway's HTTP API (served by each space's owner); anything else is the app's. */
const GATEWAY_API_PATH = /^\/(?:(?:participants|admin|api\/spaces|api\/push)\/|mcp(?:\/|$))/;
/** The space a path names (`/api/spaces/{space}/…`, `/admin/spaces/{space}/…`); else `?space=`, else the default. */
const SPACE_IN_PATH = /^\/(?:(?:api|admin)\/spaces\/([^/]+)\/|mcp\/([^/]+)\/?$)/;
/** Between a node's name and its run's random suffix in Redis. */
const RUN_SEPARATOR = '~';
/** Marks a request one node forwarded to another: it is never forwarded again. */
const FORWARDED_HEADER = 'x-mew-forwarded-by';
/**
 * How a node closes the sockets of a space whose state is gone from Redis (and refuses new ones): 1011, which the
 * SDK retries with backoff, so clients are back by themselves once Redis has the state again.
 */
const LOST_CLOSE_CODE = CLOSE_CODES.internal_error;
const LOST_CLOSE_REASON = "the space's state is gone from the cluster's Redis: not served until it is restored";

/** One of this node's sockets, and whether it asked for coalescing (applied once the owner says who it is). */
interface EdgeConnection {
  socket: WsConnection;
  coalesceMs?: number;
  space: string;
  /** The space's owner when it ran on this node as the socket connected: what the socket sends goes to it directly. */
  owner?: SpaceOwner;
}

/**
 * One gateway process of a cluster (`MEW_REDIS_URL`). Any node accepts any participant's connection and forwards
 * what it sends to its space's inbox; each space's owner (whichever node holds its lease) runs the pipeline and
 * writes what each node's connections receive to that node's outbox, which the node delivers in order. Every
 * node also competes for spaces nobody owns, so a dead owner's spaces move within the lease's TTL.
 */
export class ClusterNode {
  readonly nodeId: string;
  /**
   * This run of the node, as Redis knows it (heartbeat, outbox, leases, the connections owners bind): a node
   * restarted under the same name is another run, so nothing meant for the connections of the one before (whose
   * sessions an owner may still hold) can reach the new run's connections.
   */
  private readonly run: string;
  private readonly listener: HttpListener;
  private readonly startedAt = Date.now();
  private readonly redis: Redis;
  private readonly outboxReader: Redis;
  private readonly spaces = new Map<string, WsSpace>();
  private readonly defaultSpaceId: string;
  private readonly leases = new Map<string, SpaceLease>();
  private readonly owners = new Map<string, { owner: SpaceOwner; fence: number }>();
  private readonly connections = new Map<string, EdgeConnection>();
  /**
   * Spaces whose state this node found gone from Redis (or was told so by the marker a node left there), with what
   * was found: this node serves them no more, and owns them no more, until Redis has their state back.
   */
  private readonly lostSpaces = new Map<string, string>();
  /**
   * The detaches of the sockets closed when their space was found lost, told to its owner once Redis has the state
   * back: a restored presence hash still lists them, and a new owner would otherwise bind them again.
   */
  private readonly leftWhileLost = new Map<string, InboxEntry[]>();
  /** What this turn forwards, by space, in order, and which connections sent it. */
  private readonly forwarding = new Map<string, { fields: (string | Buffer)[]; connections: Set<string> }>();
  private readonly transport: WsTransport;
  private nextConnection = 0;
  private closed = false;
  private timers: ReturnType<typeof setInterval>[] = [];
  /** The round of lease renewals under way, and of lease acquisitions (with their takeovers): one of each at a time. */
  private renewing?: Promise<void>;
  private acquiring?: Promise<void>;
  /** Spaces being rebuilt by a takeover, with its fence: renewed meanwhile, since a long history can outlast the lease. */
  private readonly taking = new Map<string, number>();
  private baseUrl = '';
  /** When the newest heartbeat Redis acknowledged was sent: its key lives until then plus the TTL. */
  private lastHeartbeat?: number;

  constructor(private readonly options: ClusterNodeOptions) {
    if (options.spaces.length === 0) throw new TypeError('a cluster node needs at least one space');
    this.nodeId = options.nodeId ?? defaultNodeId();
    this.run = `${this.nodeId}${RUN_SEPARATOR}${randomBytes(3).toString('hex')}`;
    // Commands are pipelined automatically: a burst of forwarded frames is one write to Redis, in order.
    this.redis = openRedis(
      options.redisUrl,
      { who: `node ${this.nodeId}`, impact: "spaces owned here stop accepting messages, and what this node's clients send waits, until it is back" },
      { enableAutoPipelining: true, lazyConnect: true },
      options.redisReport,
    );
    this.outboxReader = openRedis(
      options.redisUrl,
      { who: `node ${this.nodeId} (outbox)`, impact: "this node's clients receive nothing from spaces owned elsewhere until it is back" },
      { lazyConnect: true },
      options.redisReport,
    );
    for (const config of options.spaces) {
      this.spaces.set(config.id, { id: config.id, limits: resolveLimits(config.limits, options.limits) });
      this.leases.set(config.id, new SpaceLease(this.redis, config.id, this.run));
    }
    this.defaultSpaceId = options.spaces[0].id;
    this.transport = createWsTransport({
      spaces: () => this.spaces.values(),
      resolveSpace: (id) => this.spaces.get(id || this.defaultSpaceId),
      authenticate: () => 'deferred', // only the space's owner knows its tokens
      connect: (space, who, socket, bindOptions) => this.forward(space, who, socket, bindOptions),
    });
    this.listener = new HttpListener({
      handle: (req, res) => this.serveHttp(req, res),
      upgrade: (req, socket, head) => this.transport.handleUpgrade(req, socket, head),
      fallback: options.fallback,
      leaveOtherUpgrades: options.leaveOtherUpgrades,
    });
  }

  get server(): Server {
    return this.listener.server;
  }

  /** Spaces this node owns now. */
  get ownedSpaces(): string[] {
    return [...this.owners.keys()];
  }

  /** A space this node owns now, as its owner runs it. */
  ownedSpace(id: string): Space | undefined {
    return this.owners.get(id)?.owner.space;
  }

  /** The host of a space this node owns now: what the space runs beside the gateway core. */
  ownedHost(id: string): SpaceHost | undefined {
    return this.owners.get(id)?.owner.host;
  }

  /** Listens, joins the cluster and starts competing for spaces; resolves with the bound port. */
  async listen(port: number, host: string): Promise<number> {
    await Promise.all([this.redis.connect(), this.outboxReader.connect()]);
    const { port: bound, httpUrl } = await this.listener.listen(port, host);
    this.baseUrl = httpUrl;
    await this.clearLostSpaces();
    await this.heartbeat();
    void this.readOutbox();
    this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS));
    this.timers.push(setInterval(() => void this.renewLeases(), LEASE_RENEW_MS));
    this.timers.push(setInterval(() => void this.acquireLeases(), LEASE_RETRY_MS));
    for (const timer of this.timers) timer.unref();
    await this.acquireLeases();
    return bound;
  }

  /**
   * Leaves cleanly: owned spaces write what is pending and give up their leases (another node takes them at
   * once), this node's sockets are closed (1001) and their participants leave through their spaces' owners.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all([this.renewing, this.acquiring]);
    await this.transport.close();
    await Promise.all(
      [...this.owners].map(async ([space, { owner }]) => {
        await owner.release();
        await this.leases.get(space)!.release();
      }),
    );
    this.owners.clear();
    await this.redis.del(clusterKeys.nodeAlive(this.run), clusterKeys.nodeOutbox(this.run));
    this.outboxReader.disconnect();
    await this.redis.quit();
    await this.listener.close();
  }

  /**
   * Serves again the lost spaces `startOver` (empty) and `acceptRestore` (from what Redis holds) name: an operator's
   * decision (see `ClusterOptions`). Spaces that are not lost are left alone.
   */
  private async clearLostSpaces(): Promise<void> {
    const startOver = this.options.startOver ?? spacesFromEnv(START_OVER_ENV);
    const acceptRestore = this.options.acceptRestore ?? spacesFromEnv(ACCEPT_RESTORE_ENV);
    const names = (list: string[], space: string) => list.includes(space) || list.includes(EVERY_SPACE);
    for (const [space, lease] of this.leases) {
      const empty = names(startOver, space);
      if (!empty && !names(acceptRestore, space)) continue;
      const floor = await lease.clearLost(empty);
      if (floor === 0) continue;
      const setting = empty ? START_OVER_ENV : ACCEPT_RESTORE_ENV;
      const how = empty
        ? 'starts over empty (history, audit chain, tokens and grants from nothing'
        : 'is served from what Redis holds now (what came after that copy is gone';
      console.error(
        `[cluster] ${this.nodeId}: ${setting}: space ${space}, whose state Redis had lost, ${how}; fencing tokens go on from ${floor}); ` +
          `unset ${setting} now, or a later loss would be ${empty ? 'started over' : 'accepted'} silently too`,
      );
    }
  }

  private serveHttp(req: IncomingMessage, res: ServerResponse): boolean {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/healthz' || pathname === '/health') {
      sendJson(
        res,
        200,
        healthReport(
          this.startedAt,
          [...this.owners.values()].map(({ owner }) => owner.space),
          this.nodeId,
        ),
      );
      return true;
    }
    if (pathname === '/cluster') {
      void this.status().then(
        (status) => sendJson(res, 200, status),
        (error: Error) => sendError(res, 'internal_error', `cannot read the cluster's state: ${error.message}`),
      );
      return true;
    }
    if (!GATEWAY_API_PATH.test(pathname)) return false;
    const found = SPACE_IN_PATH.exec(pathname);
    const inPath = found?.[1] ?? found?.[2];
    let space: string;
    try {
      space = inPath === undefined ? (searchParams.get('space') ?? this.defaultSpaceId) : decodePathSegment(inPath);
    } catch (error) {
      sendError(res, (error as GatewayError).code, (error as GatewayError).message);
      return true;
    }
    void this.serveSpaceHttp(space, req, res).catch((error: Error) => {
      console.error(`[cluster] ${this.nodeId}: HTTP ${req.method} ${pathname} failed:`, error);
      if (!res.headersSent) sendError(res, 'internal_error', 'request failed');
    });
    return true;
  }

  /**
   * A space's HTTP endpoint is served by its owner: here, or forwarded to the owner's node (once: a node that
   * does not own the space either answers 503, so a stale view cannot bounce a request around).
   */
  private async serveSpaceHttp(space: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.spaces.has(space)) return sendError(res, 'unknown_space', `no space "${space}"`);
    if (this.lostSpaces.has(space))
      return sendError(res, 'space_unavailable', `space "${space}" is not served: its state is gone from the cluster's Redis (see the nodes' logs)`);
    const owned = this.owners.get(space);
    if (owned) {
      if (!(await owned.owner.http(req, res))) sendError(res, 'not_found', 'no such endpoint');
      return;
    }
    const ownerNode = req.headers[FORWARDED_HEADER] ? null : await this.leases.get(space)!.owner();
    const target = ownerNode ? await this.redis.get(clusterKeys.nodeAlive(ownerNode)) : null;
    if (!target) return sendError(res, 'space_unavailable', `space "${space}" has no live owner right now; retry in a few seconds`);
    forwardHttp(req, res, new URL(req.url ?? '/', target), this.run);
  }

  /** Who owns each space, and this node's own share. */
  private async status() {
    const owners = await Promise.all([...this.leases.values()].map(async (lease) => [lease.space, nodeNameOf(await lease.owner())] as const));
    return {
      node: this.nodeId,
      owned: this.ownedSpaces,
      connections: this.connections.size,
      spaces: Object.fromEntries(owners),
      lost: [...this.lostSpaces.keys()],
    };
  }

  private async heartbeat(): Promise<void> {
    const sentAt = Date.now();
    if (this.lastHeartbeat !== undefined && sentAt - this.lastHeartbeat > NODE_TTL_MS) {
      // Out of touch for longer than the TTL (the process stalled, or Redis was unreachable): owners may have ended
      // this node's sessions, and what its sockets send would then go nowhere. They reconnect instead.
      this.lastHeartbeat = undefined;
      for (const [connection, edge] of this.connections) this.drop(connection, edge, 'this node was out of touch with the cluster: reconnect');
    }
    try {
      await this.redis.set(clusterKeys.nodeAlive(this.run), this.baseUrl, 'PX', NODE_TTL_MS);
      this.lastHeartbeat = sentAt;
    } catch (error) {
      reportCommandFailure(this.redis, 'heartbeat failed', error as Error);
    }
  }

  /**
   * Renews what this node owns or is taking over, losing what it cannot renew. Apart from acquisitions, so that a
   * takeover replaying a long history never holds up the renewal of this or any other space.
   */
  private renewLeases(): Promise<void> {
    if (this.renewing || this.closed) return this.renewing ?? Promise.resolve();
    this.renewing = (async () => {
      for (const [space, lease] of this.leases) {
        const fence = this.owners.get(space)?.fence ?? this.taking.get(space);
        if (fence === undefined) continue;
        try {
          const renewal = await lease.renew(fence);
          if (renewal === 'gone') this.lose(space);
          else if (renewal === 'lost') this.refuseLost(space, `its fencing token went back below ${fence}, the one this node holds`);
        } catch (error) {
          reportCommandFailure(this.redis, `renewing the lease of ${space} failed`, error as Error);
        }
      }
    })().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Takes what nobody owns, one space after another. */
  private acquireLeases(): Promise<void> {
    if (this.acquiring || this.closed) return this.acquiring ?? Promise.resolve();
    this.acquiring = (async () => {
      for (const [space, lease] of this.leases) {
        if (this.owners.has(space) || this.taking.has(space)) continue;
        try {
          const { outcome, fence } = await lease.acquire();
          if (outcome === 'lost') {
            this.refuseLost(space, `its fencing token went back below ${fence}, the highest a node had seen`);
            continue;
          }
          if (this.lostSpaces.delete(space)) {
            console.error(`[cluster] ${this.nodeId}: space ${space} is back in Redis (its fencing token is at ${fence}, none lost): serving it again`);
            for (const entry of this.leftWhileLost.get(space) ?? []) this.send(space, entry);
            this.leftWhileLost.delete(space);
          }
          if (outcome === 'acquired' && !this.closed) await this.takeOver(space, fence);
        } catch (error) {
          reportCommandFailure(this.redis, `taking the lease of ${space} failed`, error as Error);
        }
      }
    })().finally(() => {
      this.acquiring = undefined;
    });
    return this.acquiring;
  }

  private async takeOver(space: string, fence: number): Promise<void> {
    const config = this.options.spaces.find((c) => c.id === space)!;
    const blocking = openRedis(
      this.options.redisUrl,
      { who: `node ${this.nodeId}, owner of ${space}`, impact: `${space} does not hear its participants on other nodes until it is back` },
      {},
      this.options.redisReport,
    );
    this.taking.set(space, fence);
    try {
      const owner = await SpaceOwner.take({
        redis: this.redis,
        blocking,
        config,
        limits: this.options.limits,
        fence,
        connectionUrl: () => `${this.baseUrl.replace(/^http/, 'ws')}${GATEWAY_WS_PATH}?space=${encodeURIComponent(space)}`,
        gatewayUrl: `${this.baseUrl.replace(/^http/, 'ws')}${GATEWAY_WS_PATH}`,
        local: { key: clusterKeys.nodeOutbox(this.run), deliver: (items) => this.applyLocal(items) },
        onLost: (why: FenceLoss) =>
          why === 'lost' ? this.refuseLost(space, `its fencing token went back below ${fence}, the one this node holds`) : this.lose(space),
        features: this.options.features,
      });
      if (this.taking.get(space) !== fence) {
        owner.stop(); // its lease could not be renewed meanwhile: another node may own the space already
        return;
      }
      this.owners.set(space, { owner, fence });
    } catch (error) {
      blocking.disconnect();
      const lease = this.leases.get(space)!;
      if (error instanceof SpaceStateLostError) {
        // Not a reason to try again elsewhere: every node would find the same. The marker keeps them all away.
        await lease.markLost();
        await lease.release();
        this.refuseLost(space, error.detail);
        return;
      }
      // Someone must own the space: give the lease back so another node (or this one, next tick) tries.
      await lease.release();
      throw error;
    } finally {
      this.taking.delete(space);
    }
  }

  private lose(space: string): void {
    this.taking.delete(space);
    const owned = this.owners.get(space);
    if (!owned) return;
    this.owners.delete(space);
    owned.owner.stop();
    console.error(`[cluster] ${this.nodeId}: no longer owns ${space}`);
    // What these sockets sent went to the stopped owner, and may not have been written: they reconnect (and catch
    // up) through whoever owns the space now, which is told they are gone in case it bound them again.
    for (const [connection, edge] of this.connections) {
      if (edge.owner !== owned.owner) continue;
      edge.owner = undefined;
      this.drop(connection, edge, 'this node no longer owns the space: reconnect');
    }
  }

  /**
   * Redis lost the space's state (its fence went back: emptied, or restarted without its data). Serving it on would
   * start its history and audit chain over from nothing, under the same name, and `verify` would call that chain
   * intact: this node stops serving it instead (its owner, if here, stops; its sockets are closed and new ones
   * refused), and says once what to do. It serves the space again once Redis has the state back (`acquireLeases`).
   */
  private refuseLost(space: string, found: string): void {
    if (this.lostSpaces.has(space)) return;
    this.lostSpaces.set(space, found);
    this.taking.delete(space);
    const owned = this.owners.get(space);
    if (owned) {
      this.owners.delete(space);
      owned.owner.stop();
    }
    console.error(
      `[cluster] ${this.nodeId}: the state of space ${space} is gone from Redis (${found}: Redis was emptied, or restarted without its data), ` +
        `so this node stops serving ${space} rather than start its history and audit chain over — restore Redis from its AOF or a replica ` +
        `(the nodes serve ${space} again by themselves once it is back; for a copy older than the last takeover, start a node with ${ACCEPT_RESTORE_ENV}=${space}), ` +
        `or start ${space} over empty on purpose by starting a node with ${START_OVER_ENV}=${space}`,
    );
    const left = this.leftWhileLost.get(space) ?? [];
    for (const [connection, edge] of this.connections) {
      if (edge.space !== space) continue;
      this.connections.delete(connection);
      refuseLostSocket(edge.socket);
      left.push({ node: this.run, connection, op: 'detach', code: LOST_CLOSE_CODE, reason: LOST_CLOSE_REASON });
    }
    this.leftWhileLost.set(space, left);
  }

  /** A new socket: registered here, its attach forwarded to the space's owner, which accepts or refuses it. */
  private forward(space: WsSpace, who: WsCredentials<{ id: string }>, socket: WsConnection, options: BindOptions): TransportSession {
    if (!('token' in who)) throw new TypeError('a cluster node never authenticates itself');
    if (this.lostSpaces.has(space.id)) {
      refuseLostSocket(socket);
      return { receive: () => undefined, end: () => undefined };
    }
    const connection = String(++this.nextConnection);
    const edge: EdgeConnection = { socket, coalesceMs: options.coalesceMs, space: space.id, owner: this.owners.get(space.id)?.owner };
    this.connections.set(connection, edge);
    const ref = { node: this.run, connection };
    this.pass(edge, {
      ...ref,
      op: 'attach',
      token: who.token,
      claimedId: who.claimedId,
      address: who.address,
      routing: options.routing,
      after: cursorText(options.after),
      exclusive: options.exclusive,
    });
    return {
      receive: (data, binary) => this.pass(edge, { ...ref, op: 'frame', data, binary }),
      end: (close) => {
        if (this.connections.delete(connection)) this.pass(edge, { ...ref, op: 'detach', code: close.code, reason: close.reason });
      },
    };
  }

  /** What a socket sends: to its space's owner directly when that ran here as it connected, else to the space's inbox. */
  private pass(edge: EdgeConnection, entry: InboxEntry): void {
    if (edge.owner) edge.owner.receive(entry);
    else this.send(edge.space, entry);
  }

  /** Closes a socket whose session may be gone (1001: its client reconnects and catches up), telling the owner it left. */
  private drop(connection: string, edge: EdgeConnection, reason: string): void {
    this.connections.delete(connection);
    this.pass(edge, { node: this.run, connection, op: 'detach', code: CLOSE_CODES.going_away, reason });
    edge.socket.close(CLOSE_CODES.going_away, reason);
  }

  /** Queues an item for the space's inbox: what this turn forwards to a space is one stream entry. */
  private send(space: string, entry: InboxEntry): void {
    let batch = this.forwarding.get(space);
    if (batch && batch.fields.length >= MAX_ENTRY_FIELDS) {
      this.forwardNow(space, batch);
      batch = undefined;
    }
    if (!batch) {
      this.forwarding.set(space, (batch = { fields: [], connections: new Set() }));
      if (this.forwarding.size === 1) setImmediate(this.forwardAll);
    }
    for (const field of encodeInboxEntry(entry)) batch.fields.push(field);
    batch.connections.add(entry.connection);
  }

  private readonly forwardAll = (): void => {
    for (const [space, batch] of this.forwarding) this.forwardNow(space, batch);
    this.forwarding.clear();
  };

  private forwardNow(space: string, batch: { fields: (string | Buffer)[]; connections: Set<string> }): void {
    this.redis.xadd(clusterKeys.inbox(space), '*', PACKED_FIELD, packFields(batch.fields)).catch((error: Error) => {
      reportCommandFailure(this.redis, `forwarding to ${space} failed; its senders here reconnect`, error);
      // ioredis gave up on it (Redis unreachable through all its retries): what these connections sent in it is lost.
      // Left open, they would go on as if it had arrived; closed, their clients reconnect and send again what was
      // never acknowledged (anything of theirs already queued behind it may still arrive first).
      for (const connection of batch.connections) {
        const edge = this.connections.get(connection);
        if (edge) this.drop(connection, edge, 'what this connection sent could not reach the space: reconnect');
      }
    });
  }

  /** Delivers what owners wrote for this node's connections, in the order they wrote it. */
  private async readOutbox(): Promise<void> {
    const key = clusterKeys.nodeOutbox(this.run);
    let position = '0-0';
    let reads = 0;
    while (!this.closed) {
      let reply: [Buffer, [Buffer, Buffer[]][]][] | null;
      try {
        reply = (await this.outboxReader.xreadBuffer('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', key, position)) as typeof reply;
      } catch (error) {
        if (this.closed) return;
        reportCommandFailure(this.outboxReader, 'reading the outbox failed, retrying', error as Error);
        await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_MS));
        continue;
      }
      if (!reply) continue;
      for (const [, items] of reply) {
        for (const [id, fields] of items) {
          position = id.toString();
          for (const item of decodeOutboxEntry(unpackEntry(fields))) this.apply(item);
        }
      }
      // Read entries are this node's alone: dropping them keeps the stream short.
      if (++reads % TRIM_EVERY_READS === 0) this.redis.xtrim(key, 'MINID', position).catch(() => undefined);
    }
  }

  /** What this node's own spaces' owners tell its connections, as they produced it (after their write). */
  private applyLocal(items: LocalItem[]): void {
    for (const item of items) {
      if (!('message' in item)) this.apply(item);
      else for (const id of item.connections) this.connections.get(id)?.socket.deliver(item.message);
    }
  }

  private apply(entry: OutboxControl | OutboxDelivery): void {
    if ('connections' in entry) {
      const edges: EdgeConnection[] = [];
      let batching = false;
      for (const id of entry.connections) {
        const edge = this.connections.get(id);
        if (!edge) continue;
        edges.push(edge);
        batching ||= edge.coalesceMs !== undefined;
      }
      // Transports read only kind, from and to of an envelope, to batch routine traffic: parsed only for that.
      const header = batching && entry.header ? (parseDeliveryHeader(entry.header) as Envelope) : undefined;
      const message = new OutboundMessage(entry.data, header, Date.now(), undefined, entry.binary);
      for (const edge of edges) edge.socket.deliver(message);
      return;
    }
    switch (entry.op) {
      case 'accept': {
        const edge = this.connections.get(entry.connection);
        if (edge?.coalesceMs !== undefined) edge.socket.coalesce(entry.participant, edge.coalesceMs);
        return;
      }
      case 'close': {
        const edge = this.connections.get(entry.connection);
        if (!edge) return;
        this.connections.delete(entry.connection); // the owner ended the session already: no detach
        edge.socket.close(entry.code, entry.reason);
      }
    }
  }
}

/** Tells a socket of a lost space why it is closed (a `system/error`, then the close code and reason). */
function refuseLostSocket(socket: WsConnection): void {
  socket.deliver(new OutboundMessage(Buffer.from(refusalFrame('space_unavailable', LOST_CLOSE_REASON)), undefined, Date.now()));
  socket.close(LOST_CLOSE_CODE, LOST_CLOSE_REASON);
}

/** The name part of a node's run (`MEW_NODE_ID`), for people. */
function nodeNameOf(run: string | null): string | null {
  return run && run.slice(0, run.lastIndexOf(RUN_SEPARATOR));
}

/** Streams the request to another node and its answer back. */
function forwardHttp(req: IncomingMessage, res: ServerResponse, target: URL, nodeId: string): void {
  const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host, [FORWARDED_HEADER]: nodeId } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) sendError(res, 'space_unavailable', `the space's owner did not answer: ${error.message}`);
    else res.destroy();
  });
  // A client that goes away mid-answer (an event stream it stops reading) ends the owner's side too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

function cursorText(after: HistoryPosition | undefined): string | undefined {
  if (after === undefined) return undefined;
  return after === 'start' ? HISTORY_START_CURSOR : formatCursor(after.epoch, after.seq);
}
