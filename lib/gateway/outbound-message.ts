import { isRoutineFor, type Envelope } from '../protocol';

/**
 * Bytes serialised once for a whole fan-out: an envelope, or a raw `#id#data` stream frame. Transports cache
 * their own framing here (`wsFrame`), so a broadcast to N sockets frames the bytes once, not N times.
 */
export class OutboundMessage {
  /** The WebSocket frame of `data`, built by the ws transport on first delivery. */
  wsFrame?: Buffer;
  /** A text stream frame as a JSON string, its form inside a coalesced batch; built on first need. */
  private streamFrameJson?: Buffer;

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

  /**
   * This message as an element of a coalesced batch (`[a,b,…]`) for a connection of participant `me`, or undefined
   * when it must go at once in a frame of its own: urgent for `me`, or binary stream data (which JSON cannot carry).
   * An envelope's element is the bytes it was serialised to once for the whole fan-out; a text stream frame's is
   * its `#id#data` text as a JSON string.
   */
  batchItemFor(me: string): Buffer | undefined {
    if (this.envelope) return isRoutineFor(this.envelope, me) ? this.data : undefined;
    if (this.binary) return undefined;
    return (this.streamFrameJson ??= Buffer.from(JSON.stringify(this.data.toString('utf8'))));
  }

  static streamFrame(data: Buffer, binary: boolean): OutboundMessage {
    return new OutboundMessage(data, undefined, Date.now(), undefined, binary);
  }
}
