import type { AnyEnvelope, Envelope, Kind } from '../protocol';
import { GatewayRefusalError, RequestTimeoutError } from './sdk-errors';

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

interface Waiting {
  replyKinds: ReadonlySet<string>;
  from?: readonly string[];
  resolve(envelope: AnyEnvelope): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The SDK's one answer to "what became of what I sent?": the gateway refused it (`system/error` correlated to it →
 * `GatewayRefusalError`), it was accepted (my echo), or a reply of the kinds asked for came back; else a timeout.
 *
 * @example
 * const waiter = new ReplyWaiter();
 * client.on('message', (env) => waiter.observe(env, client.participantId));
 * const ack = await waiter.wait(sent.id, { replyKinds: ['space/invite-ack'], timeoutMs: 10_000 });
 */
export class ReplyWaiter {
  /** Sent envelope id → everyone waiting on it (its acceptance, and replies of different kinds, may be awaited apart). */
  private readonly waiting = new Map<string, Waiting[]>();

  wait<K extends Kind>(id: string, options: AwaitOptions<K>): Promise<Envelope<K>> {
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        replyKinds: new Set(options.replyKinds),
        from: options.from,
        resolve: resolve as (envelope: AnyEnvelope) => void,
        reject,
        timer: setTimeout(() => this.settle(id, waiting, () => reject(new RequestTimeoutError(`the reply to ${id}`, options.timeoutMs))), options.timeoutMs),
      };
      this.waiting.set(id, [...(this.waiting.get(id) ?? []), waiting]);
    });
  }

  /** Feeds every inbound envelope; `me` tells my echo from someone else's envelope that reuses my id. */
  observe(envelope: AnyEnvelope, me: string | undefined): void {
    if (this.waiting.size === 0) return;
    if (envelope.from === me) {
      for (const waiting of this.waiting.get(envelope.id) ?? []) {
        if (waiting.replyKinds.size === 0) this.settle(envelope.id, waiting, () => waiting.resolve(envelope));
      }
    }
    for (const ref of envelope.correlation_id ?? []) {
      for (const waiting of this.waiting.get(ref) ?? []) {
        if (envelope.kind === 'system/error') {
          this.settle(ref, waiting, () => waiting.reject(new GatewayRefusalError(envelope.payload, envelope.id)));
        } else if (waiting.replyKinds.has(envelope.kind) && (!waiting.from || waiting.from.includes(envelope.from))) {
          this.settle(ref, waiting, () => waiting.resolve(envelope));
        }
      }
    }
  }

  /** Fails everyone waiting on the envelope `id` (what became of it can no longer be learned). */
  fail(id: string, error: Error): void {
    for (const waiting of this.waiting.get(id) ?? []) this.settle(id, waiting, () => waiting.reject(error));
  }

  /** Fails everything waiting (the connection ended for good). */
  rejectAll(error: Error): void {
    for (const [id, list] of this.waiting) for (const waiting of list) this.settle(id, waiting, () => waiting.reject(error));
  }

  private settle(id: string, waiting: Waiting, finish: () => void): void {
    const list = this.waiting.get(id);
    if (!list?.includes(waiting)) return;
    clearTimeout(waiting.timer);
    const rest = list.filter((w) => w !== waiting);
    if (rest.length > 0) this.waiting.set(id, rest);
    else this.waiting.delete(id);
    finish();
  }
}
