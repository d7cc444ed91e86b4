import type { Redis } from 'ioredis';
import { clusterKeys } from './cluster-keys';
import { LEASE_TTL_MS } from './cluster-options';
import { RedisScript } from './redis-script';

/** Takes a free lease and moves the fence on: the new owner's token, which refuses every write of the one before. */
const ACQUIRE = new RedisScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0
`);

/** Extends the lease only while it is still ours and nobody took over in between. */
const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[3] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`);

/** Gives the lease up (a clean shutdown), so another node takes the space at once instead of after the TTL. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** One node's claim on one space: set-if-absent with a TTL, renewed, with a fencing token per takeover. */
export class SpaceLease {
  private readonly keys: [string, string];

  constructor(
    private readonly redis: Redis,
    readonly space: string,
    private readonly node: string,
    private readonly ttlMs = LEASE_TTL_MS,
  ) {
    this.keys = [clusterKeys.lease(space), clusterKeys.fence(space)];
  }

  /** The fencing token when this node now owns the space; undefined when another node does. */
  async acquire(): Promise<number | undefined> {
    const fence = Number(await ACQUIRE.run(this.redis, this.keys, [this.node, this.ttlMs]));
    return fence > 0 ? fence : undefined;
  }

  /** Whether the lease is still ours under `fence`, now extended. */
  async renew(fence: number): Promise<boolean> {
    return Number(await RENEW.run(this.redis, this.keys, [this.node, this.ttlMs, fence])) === 1;
  }

  async release(): Promise<void> {
    await RELEASE.run(this.redis, this.keys, [this.node]);
  }

  /** The node holding the space now, if any. */
  owner(): Promise<string | null> {
    return this.redis.get(this.keys[0]);
  }
}
