import type { Envelope } from '../protocol';

/**
 * An envelope serialised once for a whole fan-out. Transports cache their own framing of `data` here
 * (`wsFrame`), so a broadcast to N sockets frames the bytes once, not N times.
 */
export class OutboundMessage {
  /** The WebSocket text frame of `data`, built by the ws transport on first delivery. */
  wsFrame?: Buffer;

  constructor(
    readonly envelope: Envelope,
    readonly data: Buffer,
    /** Gateway receive time (ms since epoch): history and `?since=` use it, never the sender's `ts`. */
    readonly receivedAt: number,
    /** Participants allowed to see it when it is gateway-targeted (welcome, error); undefined = everyone. */
    readonly visibleTo?: readonly string[],
  ) {}

  static of(envelope: Envelope, visibleTo?: readonly string[]): OutboundMessage {
    return new OutboundMessage(envelope, Buffer.from(JSON.stringify(envelope)), Date.now(), visibleTo);
  }
}
