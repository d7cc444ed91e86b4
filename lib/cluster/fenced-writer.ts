import type { Redis } from 'ioredis';
import type { OutboundMessage } from '../gateway/outbound-message';
import { clusterKeys } from './cluster-keys';
import { deliveryFields, encodeOutboxControl, PACKED_FIELD, type OutboxControl } from './cluster-wire';
import { NestedFields, packFields, type PackedField } from './packed-fields';
import { reportCommandFailure } from './redis-connection';
import { RedisScript } from './redis-script';
import { MARK_IF_FENCE_WENT_BACK } from './space-lease';
import { WRITE_RETRY_MS } from './cluster-options';

/**
 * Applies a batch of writes only while the fence still holds the owner's token: atomically, all or none, in
 * order. The ops come packed in one argument (`packFields`), flat: `X key maxlen n field value…` (XADD, `maxlen`
 * 0 = uncapped), `H key field value` (HSET), `D key field` (HDEL), `T key minid` (XTRIM MINID).
 * Answers 1 (written, or written before: a batch id already applied is not applied again), 0 (another node took the
 * space over) or -1 (the space's state is gone from Redis: the fence went back below the owner's token, or a node
 * found so before; see `SpaceLease`).
 */
const FENCED_WRITE = new RedisScript(`${MARK_IF_FENCE_WENT_BACK}
local fence = tonumber(redis.call('GET', KEYS[1]) or '0')
local ours = tonumber(ARGV[1])
mark_if_fence_went_back(fence, ours, KEYS[2])
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if fence ~= ours then return 0 end
if redis.call('GET', KEYS[3]) == ARGV[3] then return 1 end
local ops = cmsgpack.unpack(ARGV[2])
local i = 1
while i <= #ops do
  local op = ops[i]
  if op == 'X' then
    local key, maxlen, n = ops[i + 1], tonumber(ops[i + 2]), tonumber(ops[i + 3])
    local args = { key }
    if maxlen > 0 then
      args[2] = 'MAXLEN'; args[3] = '~'; args[4] = maxlen
    end
    args[#args + 1] = '*'
    for j = 1, n do args[#args + 1] = ops[i + 3 + j] end
    redis.call('XADD', unpack(args))
    i = i + 4 + n
  elseif op == 'H' then
    redis.call('HSET', ops[i + 1], ops[i + 2], ops[i + 3])
    i = i + 4
  elseif op == 'D' then
    redis.call('HDEL', ops[i + 1], ops[i + 2])
    i = i + 3
  elseif op == 'T' then
    redis.call('XTRIM', ops[i + 1], 'MINID', ops[i + 2])
    i = i + 3
  else
    return redis.error_reply('unknown op ' .. tostring(op))
  end
end
redis.call('SET', KEYS[3], ARGV[3])
return 1
`);

type Arg = PackedField;

/** What the owner tells its own node's connections: a message for some of them, or a control. */
export type LocalItem = { message: OutboundMessage; connections: string[] } | OutboxControl;

/** Where a node takes what its own spaces' owners tell its connections: in process, as it was produced. */
export interface LocalOutbox {
  key: string;
  deliver(items: LocalItem[]): void;
}

/** Fields packed into one outbox or inbox entry at most, so that no entry grows without bound under load. */
export const MAX_ENTRY_FIELDS = 4_000;

/** Why the writer stopped for good: another node took the space over, or the space's state is gone from Redis. */
export type FenceLoss = 'taken' | 'lost';

/** One fenced write: its ops packed once, what it tells the owner's own node, and its id (`<fence>:<n>`). */
interface Batch {
  packed: Buffer;
  local: LocalItem[];
  id: string;
}

/**
 * Everything a space's owner writes (history, deliveries to nodes, records, audit, its inbox position) goes
 * through here: appended in order during a task, written as one fenced script right after it, one script at a
 * time (what comes meanwhile goes in the next). Nothing reaches a client before its write succeeded, since clients only read what was
 * written; so a change that is lost with a dead owner was never seen by anyone. A write that fails (Redis
 * unreachable, or its reply lost) is sent again as it was, under the same batch id, until it succeeds: never
 * dropped, and never applied twice. Once the fence has moved (another node took the space over) or gone back (Redis
 * lost the space's state), every write is refused and `onFenced` is told why, once.
 */
export class FencedWriter {
  private ops: Arg[] = [];
  private writing = false;
  private scheduled = false;
  private fenced = false;
  /** Each node's outbox entry of this batch (its items in order), written after the other ops. */
  private outboxes = new Map<string, Arg[]>();
  /** The delivery being grouped: one item per message and node, its connection list grown in place. */
  private grouping?: { message: OutboundMessage; slots: Map<string, number> };
  private idle: (() => void)[] = [];

  /** This write's items for the owner's own node, handed to it once the write succeeded (never through Redis). */
  private localItems: LocalItem[] = [];
  /** A batch whose write failed: sent again, as it was, before anything newer. */
  private unconfirmed?: Batch;
  private batches = 0;
  private readonly keys: [string, string, string];

  constructor(
    private readonly redis: Redis,
    space: string,
    private readonly fence: number,
    private readonly onFenced: (why: FenceLoss) => void,
    /**
     * The owner's own node: its outbox entries skip the round trip through Redis and are delivered right after the
     * write that makes them safe to see (what they tell is durable by then, as for any node).
     */
    private readonly local?: LocalOutbox,
    private readonly onError: (error: Error) => void = (e) => reportCommandFailure(redis, `a write of ${space} failed, retrying it`, e),
  ) {
    this.keys = [clusterKeys.fence(space), clusterKeys.lost(space), clusterKeys.written(space)];
  }

  /** Whether the fence refused a write: nothing this writer holds will ever be written. */
  get lost(): boolean {
    return this.fenced;
  }

  append(key: string, maxLen: number, fields: Arg[]): void {
    this.push('X', key, String(maxLen), String(fields.length), ...fields);
  }

  set(key: string, field: string, value: Arg): void {
    this.push('H', key, field, value);
  }

  unset(key: string, field: string): void {
    this.push('D', key, field);
  }

  trim(key: string, minId: string): void {
    this.push('T', key, minId);
  }

  /**
   * Delivers `message` to connection `connection` of a node: one item of the node's outbox entry for this write
   * names every connection of that node the message goes to, its bytes written once.
   */
  deliver(outboxKey: string, connection: string, message: OutboundMessage): void {
    if (outboxKey === this.local?.key) return this.deliverLocally(connection, message);
    const items = this.outboxItems(outboxKey); // first: sealing a full entry ends the grouping
    if (this.grouping?.message !== message) this.grouping = { message, slots: new Map() };
    const slot = this.grouping.slots.get(outboxKey);
    if (slot !== undefined) {
      items[slot] = `${items[slot] as string},${connection}`;
      return;
    }
    const envelope = message.envelope;
    // What the node's transport needs to batch routine traffic, without parsing the bytes again.
    const header = envelope && JSON.stringify({ k: envelope.kind, f: envelope.from, ...(envelope.to && { t: envelope.to }) });
    this.grouping.slots.set(outboxKey, items.length + 3);
    items.push(...deliveryFields(connection, message.data, header, message.binary));
  }

  /** Adds a control item (accept, close) to the node's outbox entry for this write, after its deliveries so far. */
  control(outboxKey: string, control: OutboxControl): void {
    if (outboxKey !== this.local?.key) this.outboxItems(outboxKey).push(...encodeOutboxControl(control));
    else this.pushLocal(control);
  }

  /** The message itself, not its bytes: the node's socket reuses its framing (and its envelope for batching). */
  private deliverLocally(connection: string, message: OutboundMessage): void {
    const last = this.localItems.at(-1);
    if (last && 'message' in last && last.message === message) last.connections.push(connection);
    else this.pushLocal({ message, connections: [connection] });
  }

  private pushLocal(item: LocalItem): void {
    if (this.fenced) return;
    this.localItems.push(item);
    this.schedule();
  }

  /** This write's outbox entry of a node: written as one XADD when the batch goes (or when it is full). */
  private outboxItems(outboxKey: string): Arg[] {
    let items = this.outboxes.get(outboxKey);
    if (items && items.length >= MAX_ENTRY_FIELDS) {
      this.pushEntry(outboxKey, items);
      this.grouping = undefined; // its slot was in the entry just sealed
      items = undefined;
    }
    if (!items) {
      this.outboxes.set(outboxKey, (items = []));
      this.schedule();
    }
    return items;
  }

  private pushEntry(key: string, fields: Arg[]): void {
    // One field: the node reads one value per entry instead of thousands.
    this.ops.push('X', key, '0', '2', PACKED_FIELD, new NestedFields(fields));
  }

  /** Resolves once everything appended so far is written (or can never be). */
  drained(): Promise<void> {
    if (!this.writing && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private push(...args: Arg[]): void {
    if (this.fenced) return;
    for (const arg of args) this.ops.push(arg);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.fenced) return;
    this.scheduled = true;
    // After the current task (an inbox batch is handled in one): the owner is every node's latency path.
    queueMicrotask(() => void this.write());
  }

  /** Moves the outbox entries of this batch into the ops (their order among the other ops does not matter). */
  private takeBatch(): Batch | undefined {
    for (const [key, items] of this.outboxes) this.pushEntry(key, items);
    this.outboxes = new Map();
    this.grouping = undefined;
    const { ops, localItems: local } = this;
    this.ops = [];
    this.localItems = [];
    if (ops.length === 0 && local.length === 0) return undefined;
    return { packed: packFields(ops), local, id: `${this.fence}:${++this.batches}` };
  }

  private readonly write = async (): Promise<void> => {
    this.scheduled = false;
    const batch = this.unconfirmed ?? this.takeBatch();
    if (this.fenced || !batch) return this.settle();
    this.writing = true;
    try {
      // Even with nothing to write, the fence is checked before a local delivery: a stale owner tells no one anything.
      const answer = Number(await FENCED_WRITE.run(this.redis, this.keys, [String(this.fence), batch.packed, batch.id]));
      this.unconfirmed = undefined;
      if (answer !== 1) {
        this.fenced = true;
        this.ops = [];
        this.localItems = [];
        this.outboxes = new Map();
        this.onFenced(answer === 0 ? 'taken' : 'lost');
      } else if (batch.local.length > 0) {
        this.local!.deliver(batch.local);
      }
    } catch (error) {
      this.onError(error as Error);
      // Maybe applied (a reply lost with the connection), maybe not: the same id makes a second application a no-op.
      this.unconfirmed = batch;
      await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_MS));
    } finally {
      this.writing = false;
    }
    if ((this.unconfirmed || this.ops.length > 0 || this.localItems.length > 0 || this.outboxes.size > 0) && !this.fenced) return this.write();
    this.settle();
  };

  private settle(): void {
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }
}
