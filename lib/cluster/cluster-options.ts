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

export interface ClusterOptions {
  /** `MEW_REDIS_URL`, e.g. `redis://127.0.0.1:6379`. */
  redisUrl: string;
  /** `MEW_NODE_ID`. @default `<hostname>-<pid>` */
  nodeId?: string;
}

export function defaultNodeId(): string {
  return `${hostname()}-${process.pid}`;
}
