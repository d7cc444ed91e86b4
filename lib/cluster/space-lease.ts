import type { Redis } from 'ioredis';
import { clusterKeys } from './cluster-keys';
import { LEASE_TTL_MS } from './cluster-options';
import { RedisScript } from './redis-script';

/**
 * The fence only ever grows (each takeover increments it), so one lower than a token a node has seen means Redis
 * lost what it held (emptied, or restarted without its data): the space is marked lost, with the highest token
 * known as the marker's value, and nobody may serve it. Shared by the lease scripts and the fenced write.
 */
export const MARK_IF_FENCE_WENT_BACK = `
local function mark_if_fence_went_back(fence, seen, lost_key)
  if fence >= seen then return end
  local floor = tonumber(redis.call('GET', lost_key) or '0')
  if seen > floor then redis.call('SET', lost_key, seen) end
end
`;

/**
 * Takes a free lease and moves the fence on: the new owner's token, which refuses every write of the one before.
 * Answers `{1, fence}` when taken, `{0, fence}` when another node holds it (the fence as it is: the caller remembers
 * the highest it saw), `{-1, floor}` when the space is lost.
 */
const ACQUIRE = new RedisScript(`${MARK_IF_FENCE_WENT_BACK}
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
mark_if_fence_went_back(fence, tonumber(ARGV[3]), KEYS[3])
local lost = redis.call('GET', KEYS[3])
if lost then return {-1, tonumber(lost)} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, redis.call('INCR', KEYS[2])} end
return {0, fence}
`);

/** Extends the lease only while it is still ours and nobody took over in between: 1, else 0, or -1 when the space is lost. */
const RENEW = new RedisScript(`${MARK_IF_FENCE_WENT_BACK}
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
mark_if_fence_went_back(fence, tonumber(ARGV[3]), KEYS[3])
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if redis.call('GET', KEYS[1]) == ARGV[1] and fence == tonumber(ARGV[3]) then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`);

/** Gives the lease up (a clean shutdown), so another node takes the space at once instead of after the TTL. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * Serves a lost space again (started over, or from a restored copy): the fence moves up to the highest token any
 * node remembered (so none of them takes the lower one for another loss) and the marker goes. Answers that token,
 * or 0 when the space was not lost.
 */
const CLEAR_LOST = new RedisScript(`
local floor = tonumber(redis.call('GET', KEYS[3]) or '0')
if floor == 0 then return 0 end
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
if fence < floor then redis.call('SET', KEYS[2], floor) end
redis.call('DEL', KEYS[3], KEYS[1])
return floor
`);

/** Marks the space lost (a takeover found part of its state missing), the floor raised to the token given. */
const MARK_LOST = new RedisScript(`${MARK_IF_FENCE_WENT_BACK}
mark_if_fence_went_back(0, tonumber(ARGV[1]), KEYS[1])
return 1
`);

/** What an attempt to take the lease found; `fence` is the space's fencing token as Redis has it. */
export type Acquisition =
  | { outcome: 'acquired'; fence: number }
  | { outcome: 'held'; fence: number }
  /** The space's state is gone from Redis (found now or by another node before): nobody may serve it. */
  | { outcome: 'lost'; fence: number };

/** Whether the lease is still ours (`renewed`), another's (`gone`), or the space is lost. */
export type Renewal = 'renewed' | 'gone' | 'lost';

/** Keys per SCAN step of a start-over. */
const SCAN_COUNT = 1_000;

/**
 * One node's claim on one space: set-if-absent with a TTL, renewed, with a fencing token per takeover. It
 * remembers the highest token it saw, whoever held it, so that a fence that went back (Redis emptied under the
 * cluster) is recognised instead of taken for a first start.
 */
export class SpaceLease {
  private readonly keys: [string, string, string];
  /** The highest fencing token of this space this node has seen (0: none yet). */
  private highest = 0;

  constructor(
    private readonly redis: Redis,
    readonly space: string,
    private readonly node: string,
    private readonly ttlMs = LEASE_TTL_MS,
  ) {
    this.keys = [clusterKeys.lease(space), clusterKeys.fence(space), clusterKeys.lost(space)];
  }

  /** The highest fencing token of the space this node has seen. */
  get highestFence(): number {
    return this.highest;
  }

  async acquire(): Promise<Acquisition> {
    const [status, fence] = (await ACQUIRE.run(this.redis, this.keys, [this.node, this.ttlMs, this.highest])) as [number, number];
    const outcome = status === 1 ? 'acquired' : status === 0 ? 'held' : 'lost';
    if (outcome !== 'lost') this.highest = Math.max(this.highest, Number(fence));
    return { outcome, fence: Number(fence) };
  }

  /** Extends the lease held under `fence`. */
  async renew(fence: number): Promise<Renewal> {
    this.highest = Math.max(this.highest, fence);
    const answer = Number(await RENEW.run(this.redis, this.keys, [this.node, this.ttlMs, fence]));
    return answer === 1 ? 'renewed' : answer === 0 ? 'gone' : 'lost';
  }

  async release(): Promise<void> {
    await RELEASE.run(this.redis, this.keys, [this.node]);
  }

  /** Marks the space lost: no node serves it until Redis has its state back, or it is started over. */
  async markLost(): Promise<void> {
    await MARK_LOST.run(this.redis, [this.keys[2]], [Math.max(this.highest, 1)]);
  }

  /**
   * Serves a lost space again, on purpose: `empty` deletes what is left of it in Redis first (a start-over), else what
   * Redis holds now is kept (a restored older copy); then the fence moves up to the highest token any node
   * remembered, and the marker goes. Answers that token, or 0 (and does nothing) when the space was not lost.
   */
  async clearLost(empty: boolean): Promise<number> {
    if (!(await this.redis.exists(this.keys[2]))) return 0;
    if (empty) {
      // First, while the marker still keeps every owner away: a partial state, and whatever was written after the loss.
      const keep = new Set([this.keys[1], this.keys[2]]);
      let cursor = '0';
      do {
        const [next, found] = await this.redis.scan(cursor, 'MATCH', clusterKeys.spacePattern(this.space), 'COUNT', SCAN_COUNT);
        cursor = next;
        const stale = found.filter((key) => !keep.has(key));
        if (stale.length > 0) await this.redis.del(...stale);
      } while (cursor !== '0');
    }
    const floor = Number(await CLEAR_LOST.run(this.redis, this.keys, []));
    this.highest = Math.max(this.highest, floor);
    return floor;
  }

  /** The node holding the space now, if any. */
  owner(): Promise<string | null> {
    return this.redis.get(this.keys[0]);
  }
}
