import type { Redis } from 'ioredis';
import type { OutboundMessage } from '../gateway/outbound-message';
import { deliveryFields } from './cluster-wire';
import { RedisScript } from './redis-script';
import { WRITE_RETRY_MS } from './cluster-options';

/**
 * Applies a batch of writes only while the fence still holds the owner's token: atomically, all or none, in
 * order. Ops are flat: `X key maxlen n field value…` (XADD, `maxlen` 0 = uncapped), `H key field value` (HSET),
 * `D key field` (HDEL), `T key minid` (XTRIM MINID).
 */
const FENCED_WRITE = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local i = 2
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'X' then
    local key, maxlen, n = ARGV[i + 1], tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
    local args = { key }
    if maxlen > 0 then
      args[2] = 'MAXLEN'; args[3] = '~'; args[4] = maxlen
    end
    args[#args + 1] = '*'
    for j = 1, n do args[#args + 1] = ARGV[i + 3 + j] end
    redis.call('XADD', unpack(args))
    i = i + 4 + n
  elseif op == 'H' then
    redis.call('HSET', ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
    i = i + 4
  elseif op == 'D' then
    redis.call('HDEL', ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  elseif op == 'T' then
    redis.call('XTRIM', ARGV[i + 1], 'MINID', ARGV[i + 2])
    i = i + 3
  else
    return redis.error_reply('unknown op ' .. tostring(op))
  end
end
return 1
`);

type Arg = string | Buffer;

/** Fields of one stream entry at most: Lua's `unpack` (the script's XADD) takes a few thousand values. */
export const MAX_ENTRY_FIELDS = 4_000;

/**
 * Everything a space's owner writes (history, deliveries to nodes, records, audit, its inbox position) goes
 * through here: appended in order during a task, written as one fenced script right after it, one script at a
 * time (what comes meanwhile goes in the next). Nothing reaches a client before its write succeeded, since clients only read what was
 * written; so a change that is lost with a dead owner was never seen by anyone. Once the fence has moved
 * (another node took the space over), every write is refused and `onFenced` is told, once.
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

  constructor(
    private readonly redis: Redis,
    private readonly fenceKey: string,
    private readonly fence: number,
    private readonly onFenced: () => void,
    private readonly onError: (error: Error) => void = (e) => console.error('[cluster] write failed, will retry:', e.message),
  ) {}

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
  control(outboxKey: string, fields: Arg[]): void {
    this.outboxItems(outboxKey).push(...fields);
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
    this.ops.push('X', key, '0', String(fields.length));
    for (const field of fields) this.ops.push(field); // not spread: an entry may hold thousands
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
  private takeOps(): Arg[] {
    for (const [key, items] of this.outboxes) this.pushEntry(key, items);
    this.outboxes = new Map();
    this.grouping = undefined;
    const ops = this.ops;
    this.ops = [];
    return ops;
  }

  private readonly write = async (): Promise<void> => {
    this.scheduled = false;
    const ops = this.takeOps();
    if (this.fenced || ops.length === 0) return this.settle();
    this.writing = true;
    try {
      const applied = await FENCED_WRITE.run(this.redis, [this.fenceKey], [String(this.fence), ...ops]);
      if (applied !== 1) {
        this.fenced = true;
        this.ops = [];
        this.outboxes = new Map();
        this.onFenced();
      }
    } catch (error) {
      this.onError(error as Error);
      this.ops = [...ops, ...this.takeOps()]; // in order, before what came meanwhile
      await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_MS));
    } finally {
      this.writing = false;
    }
    if ((this.ops.length > 0 || this.outboxes.size > 0) && !this.fenced) return this.write();
    this.settle();
  };

  private settle(): void {
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }
}
