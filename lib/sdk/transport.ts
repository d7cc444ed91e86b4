import WebSocket from 'isomorphic-ws';
import { BEARER_SUBPROTOCOL_PREFIX, JOIN_FRAME_SUBPROTOCOL, MEW_SUBPROTOCOL } from '../protocol';

/** What the gateway said in the WebSocket handshake. */
export interface OpenInfo {
  /**
   * The gateway took part in MEW's handshake: it selected `MEW_SUBPROTOCOL` or a `mew.bearer.*` subprotocol, so it
   * read the upgrade and took (or refused) its token. A join frame must then never be sent: the welcome may be slow,
   * but it is coming. False when it selected none of them (a plain WebSocket server echoing the first offer).
   */
  mewHandshake: boolean;
}

/** What a transport reports about its one connection. */
export interface TransportHandlers {
  /** The socket is open; transports that cannot tell what the gateway selected pass nothing (treated as no MEW handshake). */
  onOpen(info?: OpenInfo): void;
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

/** ws fails a handshake whose response selects none of the subprotocols offered; browsers do the same, silently. */
const NO_SUBPROTOCOL = /Server sent no subprotocol/;

/** Whether the subprotocol the gateway selected means it took part in MEW's handshake (see `OpenInfo`). */
export function isMewHandshake(protocol: string): boolean {
  return protocol === MEW_SUBPROTOCOL || protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX);
}

/**
 * The default transport: `isomorphic-ws`, i.e. `ws` in Node and the global `WebSocket` in browsers.
 * The token travels as `Authorization: Bearer` (Node; browsers ignore the option) and as the
 * `mew.bearer.<token>` subprotocol, or, when the token has characters a subprotocol may not carry, as the
 * `token` query parameter; without a token (join-frame mode), on none of them. A refused upgrade (HTTP 401/403/404, visible in Node only) is reported as close
 * code 4000 + status, the gateway's own convention (4401 ≈ 401), so the client treats it as final.
 * At open it reports whether the gateway selected a MEW subprotocol (`OpenInfo`). A gateway that selects no
 * subprotocol at all fails the handshake; in Node (where the failure says why) the same attempt is then made once
 * more offering none, and the token goes by header and join frame only.
 *
 * @example
 * const client = new MEWClient({ gateway, space, token, transport: createWebSocketTransport });
 */
export const createWebSocketTransport: TransportFactory = ({ url, token }, handlers) => {
  const protocols = [JOIN_FRAME_SUBPROTOCOL, MEW_SUBPROTOCOL];
  let target = url;
  if (token !== undefined && SUBPROTOCOL_SAFE.test(token)) protocols.push(BEARER_SUBPROTOCOL_PREFIX + token);
  else if (token !== undefined) target = withQuery(url, 'token', token);
  const options = token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } };

  let ws!: WebSocket;
  let closedByUs = false;
  const open = (offered: string[]) => {
    ws = new WebSocket(target, offered, options);
    ws.binaryType = 'arraybuffer';
    let refusedStatus: number | undefined;
    let noSubprotocol = false;
    ws.onopen = () => handlers.onOpen({ mewHandshake: isMewHandshake(ws.protocol) });
    ws.onmessage = (event) => handlers.onMessage(event.data as string | ArrayBuffer);
    ws.onerror = (event) => {
      const message = (event as { message?: string }).message ?? '';
      const status = UNEXPECTED_RESPONSE.exec(message)?.[1];
      if (status) refusedStatus = Number(status);
      noSubprotocol = NO_SUBPROTOCOL.test(message) && offered.length > 0;
    };
    ws.onclose = (event) => {
      if (noSubprotocol && !closedByUs) return open([]);
      const refused = refusedStatus !== undefined && refusedStatus >= 400 && refusedStatus < 500;
      handlers.onClose(refused ? 4000 + refusedStatus! : event.code, refused ? `upgrade refused with HTTP ${refusedStatus}` : event.reason);
    };
    // Node's `ws` can ping and reports pings and pongs as EventEmitter events; the browser WebSocket has neither.
    const node = ws as unknown as NodeSocket;
    if (canPing(node)) {
      node.on!('pong', () => handlers.onHeartbeat());
      node.on!('ping', () => handlers.onHeartbeat());
    }
  };
  open(protocols);

  return {
    isOpen: () => ws.readyState === WebSocket.OPEN,
    send: (data) => ws.send(data),
    close: (code, reason) => {
      closedByUs = true;
      ws.close(code, reason);
    },
    ping: canPing(ws as unknown as NodeSocket) ? () => (ws as unknown as NodeSocket).ping!() : undefined,
  };
};

/** What Node's `ws` adds to the browser WebSocket API. */
type NodeSocket = { ping?: () => void; on?: (event: 'ping' | 'pong', listener: () => void) => void };

function canPing(socket: NodeSocket): boolean {
  return typeof socket.ping === 'function' && typeof socket.on === 'function';
}

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
