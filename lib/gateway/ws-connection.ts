import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { CLOSE_CODES } from '../protocol';
import type { OutboundMessage } from './outbound-message';
import type { Connection } from './participant';
import { RoutineBatch } from './routine-batch';
import { encodeFrame } from './ws-frame';
import type { WriteCoalescer } from './write-coalescer';

/** A slow consumer's close frame sits behind its backlog: this long to read on to it before the socket is cut. */
const SLOW_CONSUMER_CLOSE_GRACE_MS = 10_000;

/**
 * One live socket. Writes the shared pre-framed broadcast bytes straight to the TCP socket, coalesced per turn;
 * a coalescing connection first offers each message to its routine batch.
 */
export class WsConnection implements Connection {
  private closed = false;
  private batch?: RoutineBatch;
  /** Set when the gateway closes this connection: why, for the audit of the participant leaving. */
  closedWith?: { code: number; reason: string };

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly coalescer: WriteCoalescer,
    private readonly maxBufferedBytes: number,
    private readonly closing: (close: { code: number; reason: string }) => void,
  ) {}

  /** From now on, routine traffic for `participantId` waits up to `windowMs` and goes out batched. */
  coalesce(participantId: string, windowMs: number): void {
    this.batch = new RoutineBatch(participantId, windowMs, (frame) => this.write(frame));
  }

  deliver(message: OutboundMessage): void {
    if (!this.writable || this.batch?.hold(message)) return;
    // Urgent: what is held goes first, so the peer sees cursors in order and never one past a held envelope.
    this.batch?.flush();
    this.write((message.wsFrame ??= encodeFrame(message.data, message.binary)));
  }

  /** The peer is gone: nothing held will be sent (a reconnect catches up from history). */
  discardHeld(): void {
    this.batch?.discard();
  }

  private get writable(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  private write(frame: Buffer): void {
    if (!this.writable) return;
    // Safe beside ws's own writes: without permessage-deflate ws writes whole frames synchronously, so frames never interleave.
    if (this.coalescer.write(this.socket, frame, this.maxBufferedBytes)) return;
    this.close(CLOSE_CODES.slow_consumer, `slow consumer: more than ${this.maxBufferedBytes} bytes unsent`);
    // The close frame waits behind the backlog (nothing more is written): a peer that reads on within the grace
    // still learns why (4429); one that stays stalled does not hold the memory for longer than that.
    setTimeout(() => this.ws.terminate(), SLOW_CONSUMER_CLOSE_GRACE_MS).unref();
  }

  close(code: number, reason: string): void {
    this.closed = true;
    this.discardHeld();
    this.closedWith ??= { code, reason };
    this.ws.close(code, reason);
    // Not in the middle of a fan-out that may have called us: the leave it broadcasts comes after that message.
    const closedWith = this.closedWith;
    queueMicrotask(() => this.closing(closedWith));
  }
}
