import type { CloseInfo } from '../gateway/gateway';
import type { OutboundMessage } from '../gateway/outbound-message';
import type { Connection } from '../gateway/participant';
import { clusterKeys } from './cluster-keys';
import type { ConnectionRef } from './cluster-wire';
import type { FencedWriter } from './fenced-writer';

/**
 * A connection held by another node (or this one), as the space's owner sees it: what the space delivers to it
 * is written to that node's outbox, where the node's own socket picks it up in order.
 */
export class RemoteConnection implements Connection {
  private closed = false;
  private readonly outbox: string;

  constructor(
    readonly ref: ConnectionRef,
    private readonly writer: FencedWriter,
    /** The session ends (presence, audit) when the space closes the connection. */
    private readonly closing: (close: CloseInfo) => void,
  ) {
    this.outbox = clusterKeys.nodeOutbox(ref.node);
  }

  deliver(message: OutboundMessage): void {
    if (!this.closed) this.writer.deliver(this.outbox, this.ref.connection, message);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.control(this.outbox, { op: 'close', connection: this.ref.connection, code, reason });
    // Not in the middle of a fan-out that may have called us: the leave it broadcasts comes after that message.
    queueMicrotask(() => this.closing({ code, reason }));
  }
}
