import type { Socket } from 'node:net';
import type { HistoryStore } from './history-store';

/** What must be written before a turn's output may leave: the history store's group commit. */
export type Durability = Pick<HistoryStore, 'commit' | 'whenDurable'>;

/** A transport whose output shows nothing that needs writing first (bare relays, cluster nodes' remote sockets). */
const NOTHING_TO_WRITE: Durability = { commit: () => true, whenDurable: (done) => done() };

/**
 * Corks each socket on its first write of an event-loop turn and uncorks them all in `setImmediate`, after every
 * pending I/O callback of the turn has run. A socket that receives 20 broadcasts in one turn then costs one
 * `writev` syscall instead of 20 writes. (`process.nextTick` would uncork after each inbound frame, which coalesces
 * far less.)
 *
 * It is also where "durable before visible" holds: before uncorking, the turn's envelopes are committed (one
 * write for the whole turn, group commit); while the store cannot write, the sockets stay corked and are released
 * once it has.
 */
export class WriteCoalescer {
  private readonly corked = new Set<Socket>();
  private scheduled = false;

  constructor(private readonly durability: Durability = NOTHING_TO_WRITE) {}

  /**
   * Queues `chunk` on the socket. Returns false, writing nothing, when the socket still holds more than
   * `maxBacklog` bytes from earlier turns: the peer is not reading. The backlog is measured before this
   * turn's writes, so a burst that is merely corked is never mistaken for a slow consumer.
   */
  write(socket: Socket, chunk: Buffer, maxBacklog: number): boolean {
    if (!this.corked.has(socket)) {
      if (socket.writableLength > maxBacklog) return false;
      socket.cork();
      this.corked.add(socket);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    }
    socket.write(chunk);
    return true;
  }

  private readonly flush = (): void => {
    if (!this.durability.commit()) return this.durability.whenDurable(this.flush);
    this.scheduled = false;
    for (const socket of this.corked) socket.uncork();
    this.corked.clear();
  };
}
