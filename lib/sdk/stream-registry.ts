import type { ActiveStream, AnyEnvelope, StreamOpenPayload } from '../protocol';
import { GatewayRefusalError, RequestTimeoutError } from './sdk-errors';

/** An open stream: everything `stream/open` (or the welcome's `active_streams`) said about it. */
export type StreamInfo = StreamOpenPayload & {
  /** Id of the `stream/open` envelope (what a spec-style `stream/close` correlates to); absent for streams from a welcome. */
  openEnvelopeId?: string;
  /** When I saw it open (ms since epoch). */
  openedAt: number;
};

interface PendingOpen {
  resolve(stream: StreamInfo): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The space's open streams, kept from the welcome's `active_streams`, `stream/open` and `stream/close`
 * (named by `payload.stream_id`, or by `correlation_id` naming the `stream/open`), and my `stream/request`s
 * waiting for the gateway's `stream/open` (matched by its `correlation_id`).
 *
 * @example
 * const streams = new StreamRegistry();
 * const opened = streams.awaitOpen(request.id, 10_000);
 * client.on('message', (env) => streams.observe(env));
 */
export class StreamRegistry {
  private readonly active = new Map<string, StreamInfo>();
  private readonly pending = new Map<string, PendingOpen>();

  list(): StreamInfo[] {
    return [...this.active.values()];
  }

  /** A welcome lists every stream open now; it replaces what was known (streams may have closed while away). */
  replaceAll(streams: readonly ActiveStream[]): void {
    this.active.clear();
    for (const stream of streams) this.active.set(stream.stream_id, { ...stream, openedAt: Date.now() });
  }

  /** Resolves with the stream the gateway opens for my `stream/request` `requestId`. */
  awaitOpen(requestId: string, timeoutMs: number): Promise<StreamInfo> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new RequestTimeoutError(`stream/request ${requestId}`, timeoutMs));
      }, timeoutMs);
      this.pending.set(requestId, { resolve, reject, timer });
    });
  }

  /** Feeds an inbound envelope; true when the list of open streams changed. */
  observe(envelope: AnyEnvelope): boolean {
    switch (envelope.kind) {
      case 'stream/open': {
        const info: StreamInfo = { ...envelope.payload, openEnvelopeId: envelope.id, openedAt: Date.now() };
        this.active.set(info.stream_id, info);
        for (const ref of envelope.correlation_id ?? []) this.settle(ref, (p) => p.resolve(info));
        return true;
      }
      case 'stream/close': {
        const id = envelope.payload.stream_id ?? this.streamOpenedBy(envelope.correlation_id);
        return id !== undefined && this.active.delete(id);
      }
      case 'system/error':
        for (const ref of envelope.correlation_id ?? []) this.settle(ref, (p) => p.reject(new GatewayRefusalError(envelope.payload, envelope.id)));
        return false;
      default:
        return false;
    }
  }

  /** Fails every pending request (the connection ended for good). */
  rejectAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(error));
  }

  private streamOpenedBy(correlationIds: readonly string[] | undefined): string | undefined {
    for (const stream of this.active.values()) if (stream.openEnvelopeId && correlationIds?.includes(stream.openEnvelopeId)) return stream.stream_id;
    return undefined;
  }

  private settle(requestId: string, finish: (pending: PendingOpen) => void): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(requestId);
    finish(pending);
  }
}
