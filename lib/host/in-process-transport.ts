import { AFTER_CURSOR_PARAM, CLOSE_CODES } from '../protocol';
import type { TransportFactory } from '../sdk/transport';
import type { CloseInfo, Gateway, Session } from '../gateway/gateway';
import { parseCursor } from '../gateway/history-cursor';
import type { OutboundMessage } from '../gateway/outbound-message';
import type { Space } from '../gateway/space';
import { type Connection, routingModeOf } from '../gateway/participant';

/**
 * The SDK's transport for a participant that runs in the gateway's own process (an MCP session, a space's host
 * services): bound to the gateway as one of the participant's connections, exactly as a socket would be (the same
 * pipeline, capabilities, presence, rate limit, pause and kick), with no socket, framing or TCP in between.
 *
 * It reads the same URL a socket would (`space`, `routing`, `after`) and takes the token the SDK presents. As on a
 * socket, what the gateway sends a turn reaches the participant after the turn, once it is durable; a refused token
 * or an unknown space ends the attempt with the close code a socket would get (4401, 4404), which the SDK treats as
 * final.
 *
 * @example
 * new MEWParticipant({ gateway: 'ws://in-process/ws', space, token, transport: inProcessTransport(gateway) });
 */
export function inProcessTransport(gateway: Gateway): TransportFactory {
  return ({ url, token }, handlers) => {
    const query = new URL(url).searchParams;
    let session: Session | undefined;
    let space: Space | undefined;
    let open = true;
    /** What the gateway delivered this turn, handed over once the turn is over (and durable). */
    let pending: OutboundMessage[] = [];
    const end = (code: number, reason: string) => {
      if (!open) return;
      open = false;
      pending = [];
      queueMicrotask(() => handlers.onClose(code, reason));
    };
    const handOver = () => {
      const messages = pending;
      pending = [];
      for (const message of messages) if (open) handlers.onMessage(message.binary ? message.data : message.data.toString('utf8'));
    };
    const connection: Connection & { closedWith?: CloseInfo } = {
      deliver(message) {
        if (!open || pending.push(message) > 1) return;
        // Never inside the gateway's fan-out (the participant may send at once), and never before it is durable.
        setImmediate(() => space?.whenDurable(handOver));
      },
      close(code, reason) {
        connection.closedWith ??= { code, reason };
        end(code, reason);
        // Not in the middle of the fan-out that may have called us: the leave comes after that message.
        queueMicrotask(() => session?.end(connection.closedWith));
      },
    };
    queueMicrotask(() => {
      if (!open) return;
      space = gateway.resolveSpace(query.get('space'));
      if (!space) return end(CLOSE_CODES.unknown_space, `no space "${query.get('space')}"`);
      const participant = token === undefined ? undefined : gateway.authenticate(space, token);
      if (!participant) return end(CLOSE_CODES.unauthorized, 'unknown or revoked token');
      const after = query.get(AFTER_CURSOR_PARAM);
      handlers.onOpen({ mewHandshake: true });
      session = gateway.connect(space, participant, connection, {
        routing: routingModeOf(query.get('routing')),
        // The SDK only asks from cursors the gateway gave it.
        ...(after !== null && { after: parseCursor(after) }),
      });
    });
    return {
      isOpen: () => open,
      send(data) {
        if (open)
          session?.receive(typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength), typeof data !== 'string');
      },
      close(code, reason) {
        if (!open) return;
        end(code, reason);
        session?.end({ code, reason });
      },
      // Nothing between us can fail silently: the connection is alive as long as this process is.
      ping: () => queueMicrotask(() => open && handlers.onHeartbeat()),
    };
  };
}
