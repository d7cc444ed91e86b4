import { hostname } from 'node:os';

/**
 * How long a lease lasts without renewal. An owner that dies (or stalls) loses its spaces after this; with
 * `LEASE_RETRY_MS` it bounds failover (target ≤ 5 s), and it must outlast a GC pause or a slow Redis reply.
 */
export const LEASE_TTL_MS = 3_000;
/** How often an owner renews its leases (a third of the TTL: two renewals may fail before it is lost). */
export const LEASE_RENEW_MS = 1_000;
/** How often a node tries to take spaces that nobody owns. */
export const LEASE_RETRY_MS = 500;
/** How long a node is taken for alive after its last heartbeat; then its connections are gone (presence leave). */
export const NODE_TTL_MS = 3_000;
/** How often a node renews its heartbeat, and an owner looks for nodes that stopped. */
export const HEARTBEAT_MS = 1_000;
/** Blocking reads return at least this often, so a loop notices that it should stop. */
export const READ_BLOCK_MS = 1_000;
/** Stream entries read per call: large enough to amortise the round trip under load. */
export const READ_COUNT = 1_000;
/** Entries per read when a new owner replays a stream (audit, rules): bounded replies and memory, however long it is. */
export const REPLAY_PAGE = 10_000;
/** Read stream entries (an inbox up to what its owner wrote, an outbox) are trimmed every this many reads: a command per read would cost more than the read. */
export const TRIM_EVERY_READS = 64;
/** A failed write (Redis unreachable) is tried again after this long, in order, until the lease says otherwise. */
export const WRITE_RETRY_MS = 200;

/** The setting that starts lost spaces over on purpose (see `ClusterOptions.startOver`). */
export const START_OVER_ENV = 'MEW_CLUSTER_START_OVER';
/** The setting that serves lost spaces from an older copy restored into Redis (see `ClusterOptions.acceptRestore`). */
export const ACCEPT_RESTORE_ENV = 'MEW_CLUSTER_ACCEPT_RESTORE';
/** In either setting: every space of the node. */
export const EVERY_SPACE = '*';

export interface ClusterOptions {
  /** `MEW_REDIS_URL`, e.g. `redis://127.0.0.1:6379`. */
  redisUrl: string;
  /** `MEW_NODE_ID`. @default `<hostname>-<pid>` */
  nodeId?: string;
  /**
   * Spaces (`*`: all) that this node, as it starts, starts over empty if Redis lost their state (a node found their
   * fencing token gone back): an operator's decision, instead of restoring Redis. Spaces that are not lost are left
   * alone. @default `MEW_CLUSTER_START_OVER`, comma-separated
   */
  startOver?: string[];
  /**
   * Spaces (`*`: all) that this node, as it starts, serves again from what Redis holds now although a node found
   * their state lost: after restoring a copy older than what the nodes saw (an RDB snapshot from before the last
   * takeover), whose fencing token is behind. What came after the copy is gone; the copy is kept.
   * @default `MEW_CLUSTER_ACCEPT_RESTORE`, comma-separated
   */
  acceptRestore?: string[];
}

/** A comma-separated list of spaces from the environment (`MEW_CLUSTER_START_OVER`, `MEW_CLUSTER_ACCEPT_RESTORE`). */
export function spacesFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function defaultNodeId(): string {
  return `${hostname()}-${process.pid}`;
}
