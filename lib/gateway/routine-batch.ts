import { COALESCE_MAX_BATCH_BYTES } from './gateway-options';
import type { OutboundMessage } from './outbound-message';
import { encodeJsonArrayFrame } from './ws-frame';

/**
 * The routine traffic held for one coalescing connection (`?coalesce=<ms>`), sent as one JSON-array frame when
 * its window ends, when it reaches `COALESCE_MAX_BATCH_BYTES`, or — by the connection, before anything urgent —
 * at once. Held items keep their order, so the peer sees every envelope in cursor order.
 */
export class RoutineBatch {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The one timer of this connection: armed by the first held item, cleared by every flush. */
  private timer?: NodeJS.Timeout;

  constructor(
    /** The connection's participant: what is routine depends on who it is (see `isRoutineFor`). */
    private readonly participantId: string,
    private readonly windowMs: number,
    private readonly send: (frame: Buffer) => void,
  ) {}

  /** Holds `message` when it is routine for this participant; false when it must be sent at once. */
  hold(message: OutboundMessage): boolean {
    const item = message.batchItemFor(this.participantId);
    if (item === undefined) return false;
    this.held.push(item);
    this.heldBytes += item.length;
    if (this.heldBytes >= COALESCE_MAX_BATCH_BYTES) this.flush();
    else this.timer ??= setTimeout(this.flush, this.windowMs).unref();
    return true;
  }

  /** Sends what is held, if anything, as one frame. */
  readonly flush = (): void => {
    this.cancelTimer();
    if (this.held.length === 0) return;
    const items = this.held;
    this.held = [];
    this.heldBytes = 0;
    this.send(encodeJsonArrayFrame(items));
  };

  /** Drops what is held (the connection is gone): a reconnect's catch-up replays it from history. */
  discard(): void {
    this.cancelTimer();
    this.held = [];
    this.heldBytes = 0;
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
