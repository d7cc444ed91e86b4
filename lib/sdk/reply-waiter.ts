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
 * client.on('message', (env) => waiter.observe(env));
 * const ack = await waiter.wait(sent.id, { replyKinds: ['space/invite-ack'], timeoutMs: 10_000 });
 */
export class ReplyWaiter {
  private readonly waiting = new Map<string, Waiting>();

  wait<K extends Kind>(id: string, options: AwaitOptions<K>): Promise<Envelope<K>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RequestTimeoutError(`the reply to ${id}`, options.timeoutMs));
      }, options.timeoutMs);
      this.waiting.set(id, {
        replyKinds: new Set(options.replyKinds),
        from: options.from,
        resolve: resolve as (envelope: AnyEnvelope) => void,
        reject,
        timer,
      });
    });
  }

  /** Feeds every inbound envelope. */
  observe(envelope: AnyEnvelope): void {
    if (this.waiting.size === 0) return;
    const echo = this.waiting.get(envelope.id);
    if (echo && echo.replyKinds.size === 0) return this.settle(envelope.id, () => echo.resolve(envelope));
    for (const ref of envelope.correlation_id ?? []) {
      const waiting = this.waiting.get(ref);
      if (!waiting) continue;
      if (envelope.kind === 'system/error') return this.settle(ref, () => waiting.reject(new GatewayRefusalError(envelope.payload, envelope.id)));
      if (waiting.replyKinds.has(envelope.kind) && (!waiting.from || waiting.from.includes(envelope.from))) {
        return this.settle(ref, () => waiting.resolve(envelope));
      }
    }
  }

  /** Fails everything waiting (the connection ended for good). */
  rejectAll(error: Error): void {
    for (const [id, waiting] of this.waiting) this.settle(id, () => waiting.reject(error));
  }

  private settle(id: string, finish: () => void): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    finish();
  }
}
