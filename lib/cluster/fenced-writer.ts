import type { Redis } from 'ioredis';
import type { OutboundMessage } from '../gateway/outbound-message';
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

/**
 * Everything a space's owner writes (history, deliveries to nodes, records, audit, its inbox position) goes
 * through here: appended in order during a turn of the event loop, written as one fenced script after it, one
 * script at a time. Nothing reaches a client before its write succeeded, since clients only read what was
 * written; so a change that is lost with a dead owner was never seen by anyone. Once the fence has moved
 * (another node took the space over), every write is refused and `onFenced` is told, once.
 */
export class FencedWriter {
  private ops: Arg[] = [];
  private writing = false;
  private scheduled = false;
  private fenced = false;
  /** The delivery being grouped: one XADD per message and node, its connection list grown in place. */
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
   * Delivers `message` to connection `connection` of `node`: the fan-out of one message to many connections of a
   * node is one stream entry naming them all, its bytes written once.
   */
  deliver(outboxKey: string, connection: string, message: OutboundMessage): void {
    if (this.grouping?.message !== message) this.grouping = { message, slots: new Map() };
    const slot = this.grouping.slots.get(outboxKey);
    if (slot !== undefined) {
      this.ops[slot] = `${this.ops[slot] as string},${connection}`;
      return;
    }
    const envelope = message.envelope;
    const fields: Arg[] = ['c', connection, 'd', message.data];
    // What the node's transport needs to batch routine traffic, without parsing the bytes again.
    if (envelope) fields.push('m', JSON.stringify({ k: envelope.kind, f: envelope.from, ...(envelope.to && { t: envelope.to }) }));
    if (message.binary) fields.push('b', '1');
    this.append(outboxKey, 0, fields);
    this.grouping.slots.set(outboxKey, this.ops.length - fields.length + 1);
  }

  /** Resolves once everything appended so far is written (or can never be). */
  drained(): Promise<void> {
    if (!this.writing && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private push(...args: Arg[]): void {
    if (this.fenced) return;
    for (const arg of args) this.ops.push(arg);
    if (!this.scheduled && !this.writing) {
      this.scheduled = true;
      setImmediate(this.write);
    }
  }

  private readonly write = async (): Promise<void> => {
    this.scheduled = false;
    const ops = this.ops;
    this.ops = [];
    this.grouping = undefined;
    if (this.fenced || ops.length === 0) return this.settle();
    this.writing = true;
    try {
      const applied = await FENCED_WRITE.run(this.redis, [this.fenceKey], [String(this.fence), ...ops]);
      if (applied !== 1) {
        this.fenced = true;
        this.ops = [];
        this.onFenced();
      }
    } catch (error) {
      this.onError(error as Error);
      this.ops = [...ops, ...this.ops]; // in order, before what came meanwhile
      this.grouping = undefined; // its slots pointed into the array before this one
      await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_MS));
    } finally {
      this.writing = false;
    }
    if (this.ops.length > 0 && !this.fenced) return this.write();
    this.settle();
  };

  private settle(): void {
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }
}
