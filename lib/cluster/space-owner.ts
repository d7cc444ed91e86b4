import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { AuditLog, type AuditRecord } from '../gateway/audit';
import { createAuditRoute } from '../gateway/audit-api';
import { createHttpApi } from '../gateway/http-api';
import type { SpaceFeature } from '../host/space-feature';
import { SpaceHost } from '../host/space-host';
import { CLOSE_CODES, type ErrorCode } from '../protocol';
import { Gateway, type CloseInfo, type Session } from '../gateway/gateway';
import { resolveLimits, type GatewayLimits } from '../gateway/gateway-options';
import { closeReason, refusalFrame } from '../gateway/ws-transport';
import { newHistoryEpoch, parseCursor, type HistoryPosition } from '../gateway/history-cursor';
import { OutboundMessage } from '../gateway/outbound-message';
import { routingModeOf, type Participant } from '../gateway/participant';
import { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { parseRecordsDocument, SpaceRecords } from '../gateway/persistence/space-records';
import type { AttachOptions, Space } from '../gateway/space';
import type { StoredStream } from '../gateway/stream-registry';
import type { SpaceConfig } from '../gateway/space-config';
import { AUDIT_COUNT_FIELD, ClusterAuditSink } from './cluster-audit-sink';
import { ClusterHistory, historyEntryOf } from './cluster-history';
import { clusterHostStorage } from './cluster-host-storage';
import { clusterKeys } from './cluster-keys';
import { HEARTBEAT_MS, READ_BLOCK_MS, READ_COUNT, TRIM_EVERY_READS, WRITE_RETRY_MS } from './cluster-options';
import { decodeInboxEntry, unpackEntry, type ConnectionRef, type InboxEntry } from './cluster-wire';
import { FencedWriter, type FenceLoss, type LocalOutbox } from './fenced-writer';
import { reportCommandFailure } from './redis-connection';
import { RemoteConnection } from './remote-connection';
import { streamPages } from './stream-pages';

export interface SpaceOwnerOptions {
  /** For commands (shared by the node). */
  redis: Redis;
  /** A connection of its own for the blocking inbox reads. */
  blocking: Redis;
  config: SpaceConfig;
  limits?: Partial<GatewayLimits>;
  /** The fencing token of this takeover. */
  fence: number;
  /** The WebSocket URL invite acks hand out. */
  connectionUrl: () => string;
  /** The node's own WebSocket URL, which the participants the space's host runs join through. */
  gatewayUrl: string;
  /** The node's own outbox, delivered in process. */
  local: LocalOutbox;
  /**
   * The fence refused a write: another node took the space over (`taken`), or the space's state is gone from Redis
   * (`lost`: the fence went back below this owner's token). This owner has stopped.
   */
  onLost: (why: FenceLoss) => void;
  /** What the space runs beside the gateway core (`serverFeatures`), started when the node takes it. @default none */
  features?: readonly SpaceFeature[];
}

/**
 * What a takeover found in Redis cannot be this space's state as its owners wrote it (part of it is gone): rather
 * than serve the space on a history or an audit chain that restarts, nobody serves it (see `SpaceLease`).
 */
export class SpaceStateLostError extends Error {
  constructor(
    readonly space: string,
    /** What is missing, e.g. `its audit stream holds 0 of the 12 events written`. */
    readonly detail: string,
  ) {
    super(`the state of space ${space} in Redis is incomplete: ${detail}`);
  }
}

/**
 * The one node that runs a space's pipeline: the same `Gateway` as a single process, rebuilt from the space's
 * records and history stream in Redis, fed by the space's inbox (every node's connections, in one order), writing
 * everything it accepts and everything it delivers through one fenced writer. A takeover binds again the
 * connections its predecessor had on nodes that are still alive.
 */
export class SpaceOwner {
  private readonly sessions = new Map<string, { session: Session; ref: ConnectionRef }>();
  private stopped = false;
  private ended = false;
  /** The space's HTTP endpoints (spec §5.3 messages, the admin API, audit, its features'), for requests that reach this owner. */
  readonly http: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly metaKey: string;
  private readonly inboxKey: string;
  private readonly presenceKey: string;

  private constructor(
    private readonly options: SpaceOwnerOptions,
    private readonly gateway: Gateway,
    readonly space: Space,
    private readonly writer: FencedWriter,
    private readonly database: GatewayDatabase,
    private readonly auditLog: AuditLog,
    /** What the space runs beside the gateway core, as a single process runs it. */
    readonly host: SpaceHost,
    private inboxPosition: string,
  ) {
    this.http = createHttpApi(gateway, [createAuditRoute(gateway, auditLog), ...host.routes]);
    this.metaKey = clusterKeys.meta(space.id);
    this.inboxKey = clusterKeys.inbox(space.id);
    this.presenceKey = clusterKeys.presence(space.id);
    this.sweeper = setInterval(() => void this.sweepStoppedNodes(), HEARTBEAT_MS);
    this.sweeper.unref();
  }

  /**
   * Builds the space from what Redis holds (records, open streams, history, audit, its features' tables), binds again
   * the connections its predecessor had on live nodes, starts reading the inbox and starts the space's host.
   */
  static async take(options: SpaceOwnerOptions): Promise<SpaceOwner> {
    const { redis, config } = options;
    const limits = resolveLimits(config.limits, options.limits);
    const metaKey = clusterKeys.meta(config.id);
    const meta = await redis.hgetall(metaKey);
    const newest = await redis.xrevrange(clusterKeys.history(config.id), '+', '-', 'COUNT', limits.historySize);
    // The audit stream is never trimmed, so its length is the number of events its owners wrote.
    const audited = await redis.xlen(clusterKeys.audit(config.id));
    if (newest.length > 0 && !meta.epoch)
      throw new SpaceStateLostError(config.id, 'its history stream holds envelopes, but the epoch that numbers them is gone');
    const written = Number(meta[AUDIT_COUNT_FIELD] ?? 0);
    if (audited < written) throw new SpaceStateLostError(config.id, `its audit stream holds ${audited} of the ${written} events written`);
    const entries = newest.reverse().flatMap(([, fields]) => historyEntryOf(fields) ?? []);
    let owner: SpaceOwner | undefined;
    const writer = new FencedWriter(redis, config.id, options.fence, (why) => owner?.lose(why), options.local);
    const epoch = meta.epoch ?? newHistoryEpoch();
    if (!meta.epoch) writer.set(metaKey, 'epoch', epoch);
    const initial = meta.records ? parseRecordsDocument(`redis ${metaKey} records`, meta.records) : undefined;
    const database = GatewayDatabase.open();
    // The space's audit and rules streams, replayed in order: every owner holds the same events, hash chain and rules.
    const auditLog = AuditLog.attach(database.db);
    for await (const page of streamPages(redis, clusterKeys.audit(config.id))) {
      for (const [, fields] of page) auditLog.record(JSON.parse(fields[1]) as AuditRecord);
      auditLog.flush(); // page by page: the log's queue is bounded, and a longer stream must not overflow it
    }
    const audit = new ClusterAuditSink(writer, auditLog, audited);
    const gateway = new Gateway({
      spaces: [config],
      database,
      limits: options.limits,
      audit,
      history: new ClusterHistory({ epoch, entries }, writer, limits.historySize),
      connectionUrl: options.connectionUrl,
      records: (id, db) => new SpaceRecords(db, id, { initial, replicate: (document) => writer.set(metaKey, 'records', JSON.stringify(document)) }),
      streams: () => ({
        initial: meta.streams ? (JSON.parse(meta.streams) as StoredStream[]) : [],
        replicate: (streams) => writer.set(metaKey, 'streams', JSON.stringify(streams)),
      }),
    });
    const space = gateway.spaces.get(config.id)!;
    const storage = clusterHostStorage({ redis, writer, database, space: config.id, fence: options.fence });
    const host = await SpaceHost.start(
      {
        config,
        space,
        gateway,
        database,
        audit,
        storage,
        gatewayUrl: options.gatewayUrl,
        httpUrl: new URL(options.gatewayUrl).origin.replace(/^ws/, 'http'),
        log: (line) => console.log(line),
      },
      options.features ?? [],
    );
    owner = new SpaceOwner(options, gateway, space, writer, database, auditLog, host, meta.inpos ?? '0-0');
    await owner.resume();
    void owner.readInbox();
    return owner;
  }

  /**
   * Writes what is pending and lets the space's processes exit, then stops (a clean shutdown: the next owner
   * continues from exactly here, and starts its own processes).
   */
  async release(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.writer.drained(), this.host.release()]);
    this.stop();
  }

  /** Stops at once: nothing more is read, written or timed. */
  stop(): void {
    this.stopped = true;
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.sweeper);
    this.space.cancelTimers();
    this.options.blocking.disconnect();
    this.auditLog.close();
    // Sends under way end on their own (each bounded by its timeout) and log into the database until then.
    void this.host.stop().finally(() => this.database.close());
  }

  private lose(why: FenceLoss): void {
    if (this.stopped) return;
    this.stop();
    this.options.onLost(why);
  }

  /**
   * The space's connections as the previous owner left them (its presence hash): those of live nodes are bound
   * again silently, so their clients only notice a pause; participants whose every connection was on a node that
   * stopped have left, and everyone is told.
   */
  private async resume(): Promise<void> {
    const recorded = Object.entries(await this.options.redis.hgetall(this.presenceKey));
    const alive = await this.aliveOf(recorded.map(([key]) => refOf(key).node));
    const left = new Set<string>();
    for (const [key, value] of recorded) {
      const { p: participantId, r } = JSON.parse(value) as { p: string; r?: string };
      const participant = this.space.participants.get(participantId);
      if (participant && alive.has(refOf(key).node)) {
        this.bind(refOf(key), participant, { routing: routingModeOf(r), resumed: true });
        continue;
      }
      this.writer.unset(this.presenceKey, key);
      if (participant) left.add(participant.id);
    }
    for (const id of left) {
      if (this.space.participants.get(id)?.online) continue;
      this.space.emit('system/presence', { event: 'leave', participant: { id } });
      this.space.audit('PARTICIPANT_LEFT', { actor: id, details: { code: CLOSE_CODES.abnormal, reason: 'its node stopped' } });
    }
    // Streams whose owner is not back close after the grace period, as when an owner leaves.
    for (const stream of this.space.streams.all()) if (!this.space.participants.get(stream.owner)?.online) this.space.orphanStreamsOf(stream.owner);
  }

  private async readInbox(): Promise<void> {
    let batches = 0;
    while (!this.stopped) {
      let reply: [Buffer, [Buffer, Buffer[]][]][] | null;
      try {
        reply = (await this.options.blocking.xreadBuffer(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          this.inboxKey,
          this.inboxPosition,
        )) as typeof reply;
      } catch (error) {
        if (this.stopped) return;
        reportCommandFailure(this.options.blocking, `reading the inbox of ${this.space.id} failed, retrying`, error as Error);
        await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_MS));
        continue;
      }
      if (this.stopped || !reply) continue;
      for (const [, items] of reply) {
        for (const [id, fields] of items) {
          this.inboxPosition = id.toString();
          for (const entry of decodeInboxEntry(unpackEntry(fields))) this.receive(entry);
        }
      }
      // In the same atomic write as the outcome of these entries: a new owner reads on after exactly these.
      this.writer.set(this.metaKey, 'inpos', this.inboxPosition);
      if (++batches % TRIM_EVERY_READS === 0) this.writer.trim(this.inboxKey, this.inboxPosition);
    }
  }

  /**
   * Handles one entry: from the inbox, or straight from a connection of this owner's own node (a round trip
   * through Redis would order nothing more: the order is made here). What it produces is written, like everything,
   * before anyone sees it; an entry whose outcome was never written was never seen, so when this owner stops its
   * node closes those connections and their clients reconnect and catch up.
   */
  receive(entry: InboxEntry): void {
    if (this.stopped) return;
    try {
      this.handle(entry);
    } catch (error) {
      console.error(`[cluster] ${this.space.id}: could not handle an entry from ${entry.node}:`, error);
    }
  }

  private handle(entry: InboxEntry): void {
    const key = keyOf(entry);
    switch (entry.op) {
      case 'attach':
        return this.attach(entry);
      case 'frame':
        this.sessions.get(key)?.session.receive(entry.data, entry.binary);
        return;
      case 'detach':
        return this.end(key, { code: entry.code, reason: entry.reason });
    }
  }

  private attach(entry: Extract<InboxEntry, { op: 'attach' }>): void {
    const participant = this.gateway.authenticate(this.space, entry.token, { via: 'websocket', address: entry.address });
    if (!participant) return this.refuse(entry, 'invalid_token', 'unknown or revoked token');
    if (entry.claimedId !== undefined && entry.claimedId !== participant.id) {
      return this.refuse(entry, 'identity_mismatch', `this token does not authenticate "${entry.claimedId}"`);
    }
    let after: HistoryPosition | undefined;
    try {
      after = entry.after === undefined ? undefined : parseCursor(entry.after);
    } catch {
      after = 'start'; // the node checked it at the upgrade; never reached
    }
    this.writer.control(clusterKeys.nodeOutbox(entry.node), { op: 'accept', connection: entry.connection, participant: participant.id });
    this.bind(entry, participant, { routing: entry.routing, after, exclusive: entry.exclusive });
  }

  /** Binds a connection here and records it in the presence hash (in the same write as its welcome). */
  private bind(ref: ConnectionRef, participant: Participant, options: AttachOptions): void {
    const key = keyOf(ref);
    const connection = new RemoteConnection({ node: ref.node, connection: ref.connection }, this.writer, (close) => this.end(key, close));
    this.sessions.set(key, { session: this.gateway.connect(this.space, participant, connection, options), ref: connection.ref });
    if (!options.resumed) this.writer.set(this.presenceKey, key, JSON.stringify({ p: participant.id, ...(options.routing && { r: options.routing }) }));
  }

  private end(key: string, close: CloseInfo): void {
    const bound = this.sessions.get(key);
    if (!bound) return;
    this.sessions.delete(key);
    this.writer.unset(this.presenceKey, key);
    bound.session.end(close);
  }

  /** A refused join: told why, then closed with 4401, as a single gateway does after an upgrade. */
  private refuse(ref: ConnectionRef, error: ErrorCode, message: string): void {
    const outbox = clusterKeys.nodeOutbox(ref.node);
    this.writer.deliver(outbox, ref.connection, new OutboundMessage(Buffer.from(refusalFrame(error, message)), undefined, Date.now()));
    this.writer.control(outbox, { op: 'close', connection: ref.connection, code: CLOSE_CODES.unauthorized, reason: closeReason(message) });
  }

  /** Connections of nodes whose heartbeat expired are gone: their participants leave (and may reconnect anywhere). */
  private async sweepStoppedNodes(): Promise<void> {
    if (this.sessions.size === 0) return;
    let alive: Set<string>;
    try {
      alive = await this.aliveOf([...this.sessions.values()].map((b) => b.ref.node));
    } catch {
      return; // Redis unreachable: no node can be judged stopped
    }
    if (this.stopped) return;
    for (const [key, bound] of this.sessions) {
      if (!alive.has(bound.ref.node)) this.end(key, { code: CLOSE_CODES.abnormal, reason: `node ${bound.ref.node} stopped` });
    }
  }

  /** Which of these nodes still have a heartbeat. */
  private async aliveOf(nodes: string[]): Promise<Set<string>> {
    const distinct = [...new Set(nodes)];
    const answers = await Promise.all(distinct.map((node) => this.options.redis.exists(clusterKeys.nodeAlive(node))));
    return new Set(distinct.filter((_, i) => answers[i] === 1));
  }
}

function keyOf(ref: ConnectionRef): string {
  return `${ref.node}\n${ref.connection}`;
}

function refOf(key: string): ConnectionRef {
  const at = key.indexOf('\n');
  return { node: key.slice(0, at), connection: key.slice(at + 1) };
}
