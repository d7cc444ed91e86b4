import type { AnyEnvelope, Envelope, Kind } from '../protocol';
import type { SentEnvelope, Unacknowledged } from './mew-client';
import { GatewayRefusalError, OutboundQueueFullError, RequestTimeoutError, UnacknowledgedSendError } from './sdk-errors';

/**
 * Where one of my envelopes stands: `queued` (no connection yet), `written` (on a connection, neither echoed nor
 * refused: in doubt if it drops, so sent again), `retrying` (refused with `rate_limited`, sent again after
 * `retry_after_ms`), `accepted` (my echo: the gateway took and routed it) or `refused` (its `system/error`).
 */
export type SendState = 'queued' | 'written' | 'retrying' | 'accepted' | 'refused';

/** How an envelope about a sent one relates to it: my echo, a reply correlated to it, or a reply to one of its links. */
export type Relation = 'echo' | 'reply' | 'link';

/** One party waiting on what becomes of a sent envelope (`sendAndAwait`'s, an MCP request's). */
export interface Waiter {
  /** An envelope about it arrived (not its refusal, which fails every waiter); true when that settled the waiter. */
  observe(envelope: AnyEnvelope, relation: Relation): boolean;
  /** It failed (refused, given up, connection closed, cancelled, timed out): the waiter is settled. */
  fail(error: Error): void;
}

/** What `sendAndAwait` waits for. */
export interface AwaitOptions<K extends Kind> {
  /**
   * Reply kinds that settle it: the first envelope of one of these kinds whose `correlation_id` names mine. Empty:
   * my own echo settles it, which is how the gateway says it accepted and routed the envelope.
   */
  replyKinds: readonly K[];
  /** Only replies from these participants count (e.g. a request's targets). @default anyone */
  from?: readonly string[];
  timeoutMs: number;
}

/** A waiter on a record, with its timeout. */
export interface Waiting {
  readonly waiter: Waiter;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** The record of one envelope I sent, from `send` until it is settled and nobody waits on it any more. */
export interface SentRecord {
  /** As sent; absent for a record made only to wait on (an envelope whose own record was already settled). */
  readonly envelope?: SentEnvelope;
  /** Exactly the text written: a resend repeats it byte for byte, so the gateway recognises the id. */
  text?: string;
  state: SendState;
  /** `rate_limited` refusals retried so far. */
  retries: number;
  /** Others' envelopes whose replies count as replies to this one (the fulfilments of my proposal). */
  links?: string[];
  readonly waiting: Waiting[];
}

/** What a `SentEnvelopes` needs of its client. */
export interface SendHooks {
  /** Envelopes kept while disconnected, and awaiting acknowledgement; beyond that the oldest in doubt is given up. */
  limit: number;
  /** `rate_limited` refusals retried before the refusal counts. */
  rateLimitRetries: number;
  /** Writes a frame to the connection if it is ready: false when it cannot (the record stays queued). */
  write(text: string): boolean;
  /** Sends nobody will learn more about (the client's `unacknowledged` event). */
  unacknowledged(lost: Unacknowledged): void;
}

const AWAITING_ACK: ReadonlySet<SendState> = new Set(['queued', 'written', 'retrying']);
const NO_REFS: readonly string[] = [];

/**
 * The one record per envelope I send, and everything that follows it, in one place (as the MCP SDK's `Protocol`
 * owns each request's correlation, timeout and cancellation): the client's queue while disconnected, the resend of
 * what a dropped connection left in doubt, `rate_limited` retries, acceptance (my echo) or refusal (a `system/error`
 * correlated to it), the replies correlated to it or to its links, and who waits on each, with timeouts. `sendAndAwait`
 * waits here, and MCP request tracking is a `Waiter` on the same record (lib/sdk/mcp-request-tracker.ts): a refusal,
 * a give-up or a closed connection reaches every waiter of the envelope at once.
 *
 * @example
 * const sent = client.sent;
 * const { id } = client.send({ kind: 'chat', payload: { text: 'hi' } });
 * await sent.wait(id, { replyKinds: [], timeoutMs: 10_000 }); // accepted
 * sent.get(id); // undefined: settled, and nobody waits on it any more
 */
export class SentEnvelopes {
  private readonly records = new Map<string, SentRecord>();
  /** Link id → the id of the record it answers for. */
  private readonly links = new Map<string, string>();
  private queued = 0;
  private unacknowledged = 0;

  constructor(private readonly hooks: SendHooks) {}

  /** Envelopes waiting for the connection. */
  get queuedCount(): number {
    return this.queued;
  }

  /** The record of envelope `id`, while it is not settled or someone waits on it. */
  get(id: string): SentRecord | undefined {
    return this.records.get(id);
  }

  /** Every record, oldest first. */
  values(): IterableIterator<SentRecord> {
    return this.records.values();
  }

  /** The first of my envelopes the gateway has neither accepted nor refused yet that `match`es. */
  awaitingAck(match: (envelope: SentEnvelope) => boolean): SentEnvelope | undefined {
    if (this.unacknowledged === 0) return undefined;
    for (const record of this.records.values()) if (record.envelope && AWAITING_ACK.has(record.state) && match(record.envelope)) return record.envelope;
    return undefined;
  }

  /**
   * Records a send and writes it, or keeps it queued for the next connection (`OutboundQueueFullError` when the
   * queue is full). Sending an id again repeats it: its waiters stay.
   */
  send(envelope: SentEnvelope, text: string): void {
    const written = this.hooks.write(text);
    if (!written && this.queued >= this.hooks.limit) throw new OutboundQueueFullError(this.hooks.limit);
    const previous = this.records.get(envelope.id);
    if (previous) this.count(previous.state, -1);
    const record: SentRecord = { envelope, text, state: written ? 'written' : 'queued', retries: 0, waiting: previous?.waiting ?? [] };
    if (previous?.links) record.links = previous.links;
    this.records.set(envelope.id, record);
    this.count(record.state, 1);
    if (this.unacknowledged > this.hooks.limit) this.giveUpOldest();
  }

  /**
   * Feeds every envelope received (duplicates too: the gateway's answer to a resend settles it): settles my echo,
   * fails every waiter of what the gateway refused, and passes replies on. True when the envelope is a `rate_limited`
   * refusal that will be retried instead: nobody hears of it, the envelope has not failed yet.
   */
  observe(envelope: AnyEnvelope, me: string | undefined): boolean {
    if (this.records.size === 0) return false;
    if (envelope.kind === 'system/error') return this.refused(envelope);
    if (envelope.from === me) {
      const record = this.records.get(envelope.id);
      if (record) {
        if (AWAITING_ACK.has(record.state)) this.setState(record, 'accepted');
        this.deliver(envelope.id, record, envelope, 'echo');
      }
    }
    for (const ref of envelope.correlation_id ?? NO_REFS) {
      const record = this.records.get(ref);
      if (record) this.deliver(ref, record, envelope, 'reply');
      const linked = this.links.get(ref);
      const owner = linked !== undefined ? this.records.get(linked) : undefined;
      if (owner) this.deliver(linked!, owner, envelope, 'link');
    }
    return false;
  }

  /**
   * Waits for what becomes of envelope `id` (see `AwaitOptions`): rejects with `GatewayRefusalError` when the gateway
   * refuses it, `RequestTimeoutError` after `timeoutMs`, `UnacknowledgedSendError` when it is given up.
   */
  wait<K extends Kind>(id: string, options: AwaitOptions<K>): Promise<Envelope<K>> {
    return new Promise((resolve, reject) => {
      const replyKinds: ReadonlySet<string> = new Set(options.replyKinds);
      const waiter: Waiter = {
        observe: (envelope, relation) => {
          const settles =
            replyKinds.size === 0
              ? relation === 'echo'
              : relation === 'reply' && replyKinds.has(envelope.kind) && (!options.from || options.from.includes(envelope.from));
          if (settles) resolve(envelope as Envelope<K>);
          return settles;
        },
        fail: reject,
      };
      this.follow(id, waiter, options.timeoutMs, () => new RequestTimeoutError(`the reply to ${id}`, options.timeoutMs));
    });
  }

  /** Adds a waiter on envelope `id`; after `timeoutMs` it fails with `onTimeout()`'s error. */
  follow(id: string, waiter: Waiter, timeoutMs: number, onTimeout: () => Error): void {
    let record = this.records.get(id);
    if (!record) {
      record = { state: 'accepted', retries: 0, waiting: [] };
      this.records.set(id, record);
    }
    const waiting: Waiting = {
      waiter,
      timer: setTimeout(() => {
        const current = this.records.get(id);
        if (current && this.remove(id, current, waiting)) waiter.fail(onTimeout());
      }, timeoutMs),
    };
    record.waiting.push(waiting);
  }

  /** Replies to `linkId` (someone else's envelope) count as replies to my envelope `id` from now on. */
  link(linkId: string, id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    (record.links ??= []).push(linkId);
    this.links.set(linkId, id);
  }

  /** Fails everyone waiting on envelope `id` (I gave up on it, or what became of it can no longer be learnt). */
  fail(id: string, error: Error): void {
    const record = this.records.get(id);
    if (!record) return;
    for (const waiting of [...record.waiting]) if (this.remove(id, record, waiting)) waiting.waiter.fail(error);
  }

  /** Fails every waiter (the connection ended for good); what is queued stays for a later connection. */
  failAll(error: Error): void {
    for (const id of [...this.records.keys()]) this.fail(id, error);
  }

  /**
   * On a connection's first welcome: first what an earlier connection may or may not have delivered (the catch-up
   * before the welcome settled those the gateway had; the gateway answers a repeat of the others with the
   * original), then what was queued, oldest first.
   */
  flush(write: (text: string) => void): void {
    for (const record of this.records.values()) if (record.state === 'written') write(record.text!);
    for (const record of this.records.values()) {
      if (record.state !== 'queued') continue;
      write(record.text!);
      this.setState(record, 'written');
    }
  }

  /** Gives up the sends in doubt: nothing will settle or resend them now; their waiters fail, listeners hear of it. */
  giveUpInDoubt(reason: string): void {
    const ids: string[] = [];
    for (const [id, record] of this.records) if (record.state === 'written') ids.push(id);
    this.giveUp(ids, reason);
  }

  private giveUpOldest(): void {
    for (const [id, record] of this.records) {
      if (record.state !== 'written') continue;
      return this.giveUp([id], `more than ${this.hooks.limit} sends were awaiting acknowledgement`);
    }
  }

  private giveUp(ids: string[], reason: string): void {
    if (ids.length === 0) return;
    for (const id of ids) {
      this.fail(id, new UnacknowledgedSendError(id, reason));
      this.drop(id, this.records.get(id)!);
    }
    this.hooks.unacknowledged({ ids, reason });
  }

  /** A `system/error` correlated to one of mine: retried when rate-limited with retries left, else refused. */
  private refused(error: Envelope<'system/error'>): boolean {
    const id = error.correlation_id?.find((ref) => this.records.has(ref));
    if (id === undefined) return false;
    const record = this.records.get(id)!;
    const { payload } = error;
    if (payload.error === 'rate_limited' && AWAITING_ACK.has(record.state) && record.retries < this.hooks.rateLimitRetries) {
      record.retries++;
      this.setState(record, 'retrying'); // refused, so not in doubt: a reconnect meanwhile does not resend it, the timer does
      setTimeout(() => {
        if (this.records.get(id) === record && record.state === 'retrying') this.setState(record, this.hooks.write(record.text!) ? 'written' : 'queued');
      }, payload.retry_after_ms ?? 0);
      return true;
    }
    this.setState(record, 'refused');
    this.fail(id, new GatewayRefusalError(payload, error.id));
    this.settleIfDone(id, record);
    return false;
  }

  private deliver(id: string, record: SentRecord, envelope: AnyEnvelope, relation: Relation): void {
    for (const waiting of [...record.waiting]) {
      if (waiting.waiter.observe(envelope, relation)) this.remove(id, record, waiting);
    }
    this.settleIfDone(id, record);
  }

  /** Takes a waiter off its record (false when it had already settled). */
  private remove(id: string, record: SentRecord, waiting: Waiting): boolean {
    const index = record.waiting.indexOf(waiting);
    if (index < 0) return false;
    clearTimeout(waiting.timer);
    record.waiting.splice(index, 1);
    this.settleIfDone(id, record);
    return true;
  }

  /** Forgets a record once the gateway answered it and nobody waits on it. */
  private settleIfDone(id: string, record: SentRecord): void {
    if (record.waiting.length === 0 && !AWAITING_ACK.has(record.state) && this.records.get(id) === record) this.drop(id, record);
  }

  private drop(id: string, record: SentRecord): void {
    this.count(record.state, -1);
    this.records.delete(id);
    for (const link of record.links ?? []) this.links.delete(link);
  }

  private setState(record: SentRecord, state: SendState): void {
    this.count(record.state, -1);
    record.state = state;
    this.count(state, 1);
  }

  /** Keeps the queued and unacknowledged counts (bounds checked on every send) without scanning. */
  private count(state: SendState, delta: 1 | -1): void {
    if (state === 'queued') this.queued += delta;
    if (AWAITING_ACK.has(state)) this.unacknowledged += delta;
  }
}
