import type { Envelope } from '../protocol';

/**
 * Bytes serialised once for a whole fan-out: an envelope, or a raw `#id#data` stream frame. Transports cache
 * their own framing here (`wsFrame`), so a broadcast to N sockets frames the bytes once, not N times.
 */
export class OutboundMessage {
  /** The WebSocket frame of `data`, built by the ws transport on first delivery. */
  wsFrame?: Buffer;

  constructor(
    readonly data: Buffer,
    /** The envelope, or undefined for a stream frame (which is never parsed nor kept in history). */
    readonly envelope: Envelope | undefined,
    /** Gateway receive time (ms since epoch): history and `?since=` use it, never the sender's `ts`. */
    readonly receivedAt: number,
    /** Participants allowed to see it when it is gateway-targeted (welcome, error); undefined = everyone. */
    readonly visibleTo?: readonly string[],
    /** Sent as a binary frame (stream data that arrived binary); envelopes are always text. */
    readonly binary = false,
    /** The envelope's number in its space's history (its `cursor`); 0 for stream frames, which are not kept. */
    readonly seq = 0,
  ) {}

  static streamFrame(data: Buffer, binary: boolean): OutboundMessage {
    return new OutboundMessage(data, undefined, Date.now(), undefined, binary);
  }
}
