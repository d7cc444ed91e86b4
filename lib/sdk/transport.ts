import WebSocket from 'isomorphic-ws';
import { BEARER_SUBPROTOCOL_PREFIX, MEW_SUBPROTOCOL } from '../protocol';

/** What a transport reports about its one connection. */
export interface TransportHandlers {
  onOpen(): void;
  /** A text frame as a string, a binary one as bytes. */
  onMessage(data: string | ArrayBuffer | Uint8Array): void;
  /** Called once, whatever ended the connection (including a failed handshake). */
  onClose(code: number, reason: string): void;
  /** A protocol-level ping or pong arrived: proof the peer is alive (only transports with `ping`). */
  onHeartbeat(): void;
}

/**
 * One connection attempt to the gateway (the MCP SDK's tiny `Transport` seam): the client makes a new one
 * per attempt and never reuses it, so tests can inject failures by wrapping or replacing the factory.
 */
export interface Transport {
  /** False once closing has begun (e.g. the gateway's close frame arrived): what is sent then is lost. */
  isOpen(): boolean;
  send(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
  /** Sends a WebSocket protocol ping; absent where the platform cannot (browsers answer pings but never send them). */
  ping?: () => void;
}

/** Where to connect and as whom. */
export interface TransportRequest {
  /** The gateway's `/ws` URL, `space` already in the query. */
  url: string;
  /** Sent on the upgrade; absent when the client authenticates with a join frame instead. */
  token?: string;
}

export type TransportFactory = (request: TransportRequest, handlers: TransportHandlers) => Transport;

/** RFC 7230 `token` characters: all a subprotocol value may hold. */
const SUBPROTOCOL_SAFE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** ws reports a refused upgrade as an error "Unexpected server response: 401"; browsers do not say why. */
const UNEXPECTED_RESPONSE = /Unexpected server response: (\d{3})/;

/**
 * The default transport: `isomorphic-ws`, i.e. `ws` in Node and the global `WebSocket` in browsers.
 * The token travels as `Authorization: Bearer` (Node; browsers ignore the option) and as the
 * `mew.bearer.<token>` subprotocol, or, when the token has characters a subprotocol may not carry, as the
 * `token` query parameter; without a token (join-frame mode), on none of them. A refused upgrade (HTTP 401/403/404, visible in Node only) is reported as close
 * code 4000 + status, the gateway's own convention (4401 ≈ 401), so the client treats it as final.
 *
 * @example
 * const client = new MEWClient({ gateway, space, token, transport: createWebSocketTransport });
 */
export const createWebSocketTransport: TransportFactory = ({ url, token }, handlers) => {
  const protocols = [MEW_SUBPROTOCOL];
  let target = url;
  if (token !== undefined && SUBPROTOCOL_SAFE.test(token)) protocols.push(BEARER_SUBPROTOCOL_PREFIX + token);
  else if (token !== undefined) target = withQuery(url, 'token', token);

  const ws = new WebSocket(target, protocols, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  ws.binaryType = 'arraybuffer';
  let refusedStatus: number | undefined;
  ws.onopen = () => handlers.onOpen();
  ws.onmessage = (event) => handlers.onMessage(event.data as string | ArrayBuffer);
  ws.onerror = (event) => {
    const status = UNEXPECTED_RESPONSE.exec((event as { message?: string }).message ?? '')?.[1];
    if (status) refusedStatus = Number(status);
  };
  ws.onclose = (event) => {
    const refused = refusedStatus !== undefined && refusedStatus >= 400 && refusedStatus < 500;
    handlers.onClose(refused ? 4000 + refusedStatus! : event.code, refused ? `upgrade refused with HTTP ${refusedStatus}` : event.reason);
  };

  // Node's `ws` can ping and reports pings and pongs as EventEmitter events; the browser WebSocket has neither.
  const node = ws as unknown as { ping?: () => void; on?: (event: 'ping' | 'pong', listener: () => void) => void };
  const canPing = typeof node.ping === 'function' && typeof node.on === 'function';
  if (canPing) {
    node.on!('pong', () => handlers.onHeartbeat());
    node.on!('ping', () => handlers.onHeartbeat());
  }

  return {
    isOpen: () => ws.readyState === WebSocket.OPEN,
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    ping: canPing ? () => node.ping!() : undefined,
  };
};

/**
 * The gateway URL for a space: `space` set in the query, anything else kept.
 *
 * @example
 * spaceUrl('ws://localhost:3000/ws', 'demo'); // 'ws://localhost:3000/ws?space=demo'
 */
export function spaceUrl(gateway: string, space: string): string {
  return withQuery(gateway, 'space', space);
}

/** `url` with the query parameter `key` set to `value`. */
export function withQuery(url: string, key: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(key, value);
  return parsed.toString();
}
