import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import {
  AFTER_CURSOR_PARAM,
  BEARER_SUBPROTOCOL_PREFIX,
  CLOSE_CODES,
  COALESCE_PARAM,
  EXCLUSIVE_PARAM,
  MEW_SUBPROTOCOL,
  PROTOCOL_VERSION,
  type ErrorCode,
} from '../protocol';
import type { AuthAttempt, CloseInfo } from './gateway';
import type { GatewayLimits } from './gateway-options';
import { routingModeOf, type RoutingMode } from './participant';
import { WsConnection } from './ws-connection';
import { WriteCoalescer, type Durability } from './write-coalescer';
import { bearerToken, rejectUpgrade, originAllowed } from './upgrade-auth';
import { COALESCE_DEFAULT_MS, COALESCE_MAX_MS, COALESCE_MIN_MS, GATEWAY_ID } from './gateway-options';
import { parseCursor, type HistoryPosition } from './history-cursor';

/** How long shutdown waits for a peer to answer the close handshake before dropping it. */
const SHUTDOWN_CLOSE_TIMEOUT_MS = 1000;
/** After a protocol error ws has sent its close frame; the peer gets this long to read it before the socket is cut. */
const CLOSE_HANDSHAKE_GRACE_MS = 1000;

/** What the transport needs of a space: its id and limits. */
export interface WsSpace {
  readonly id: string;
  readonly limits: GatewayLimits;
}

/** Who a bound connection is: known at the upgrade, or to be decided by whoever runs the space (cluster mode). */
export type WsCredentials<P> = { participant: P } | { token: string; claimedId?: string; address?: string };

/** A bound connection as the transport drives it: frames in, and the end. */
export interface TransportSession {
  receive(data: Buffer, binary: boolean): void;
  end(close: CloseInfo): void;
}

/**
 * Whoever runs the spaces behind the sockets: this process's gateway (`localSessions`), or a cluster node that
 * forwards to each space's owner. The transport handles the upgrade, the socket and its framing; the host decides.
 */
export interface WsSessionHost<S extends WsSpace = WsSpace, P extends { id: string } = { id: string }> {
  spaces(): Iterable<S>;
  /** The space a client asked for, or the default when it named none. */
  resolveSpace(id?: string | null): S | undefined;
  /** The participant a token authenticates now, undefined for nobody, or `deferred` when the space's owner decides. */
  authenticate(space: S, token: string, attempt: AuthAttempt): P | undefined | 'deferred';
  /** Binds an upgraded connection; a deferred one is refused later by closing `connection` (4401). */
  connect(space: S, who: WsCredentials<P>, connection: WsConnection, options: BindOptions): TransportSession;
}

export interface WsTransport {
  /** Handles an HTTP upgrade whose path is the gateway's (`/ws`). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection (1001), stops the ping timer, and resolves once every socket is gone. */
  close(): Promise<void>;
}

/**
 * The WebSocket side of the gateway, on a `ws` server in `noServer` mode so it shares the app's HTTP server.
 * Authentication happens at the upgrade when the token comes with it (401 otherwise), or in a first `join`
 * frame for clients of other MEW gateways (closed with 4401 when it is missing, wrong or late).
 */
export function createWsTransport<S extends WsSpace, P extends { id: string }>(host: WsSessionHost<S, P>, durability?: Durability): WsTransport {
  // Above the hard limit `ws` closes with 1009 before buffering the frame; below it we answer message_too_large.
  const hardFrameBytes = Math.max(...[...host.spaces()].map((s) => s.limits.hardFrameBytes));
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: hardFrameBytes,
    perMessageDeflate: false, // compression would make per-recipient framing and the shared broadcast frame impossible
    clientTracking: true,
    handleProtocols: (protocols) => {
      // Browsers fail the handshake unless one offered subprotocol is echoed; prefer one that carries no token.
      // MEW's own first: it tells the SDK we read the upgrade, so it never sends its token again in a join frame.
      if (protocols.has(MEW_SUBPROTOCOL)) return MEW_SUBPROTOCOL;
      for (const p of protocols) if (!p.startsWith(BEARER_SUBPROTOCOL_PREFIX)) return p;
      const [first] = protocols;
      return first ?? false;
    },
  });
  const coalescer = new WriteCoalescer(durability);
  const alive = new WeakMap<WebSocket, boolean>();
  const pingIntervalMs = Math.min(...[...host.spaces()].map((s) => s.limits.pingIntervalMs));
  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate(); // no pong since the last ping: a dead peer (half-open TCP) is dropped
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, pingIntervalMs);
  pinger.unref();

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const space = host.resolveSpace(url.searchParams.get('space'));
    if (!space) return rejectUpgrade(socket, 404, 'unknown_space', `no space "${url.searchParams.get('space')}"`);
    if (!originAllowed(req, space.limits.allowedOrigins)) {
      return rejectUpgrade(socket, 403, 'origin_not_allowed', `origin ${req.headers.origin} may not open this gateway`);
    }
    const afterParam = url.searchParams.get(AFTER_CURSOR_PARAM);
    let after: HistoryPosition | undefined;
    try {
      after = afterParam === null ? undefined : parseCursor(afterParam);
    } catch (e) {
      return rejectUpgrade(socket, 400, 'invalid_cursor', (e as Error).message);
    }
    const coalesceMs = parseCoalesceMs(url.searchParams.get(COALESCE_PARAM));
    if (Number.isNaN(coalesceMs)) {
      return rejectUpgrade(
        socket,
        400,
        'invalid_request',
        `${COALESCE_PARAM} must be a number of milliseconds (${COALESCE_MIN_MS}–${COALESCE_MAX_MS}) or empty`,
      );
    }
    const token = bearerToken(req, url, BEARER_SUBPROTOCOL_PREFIX);
    const address = req.socket.remoteAddress;
    const participant = token === undefined ? undefined : host.authenticate(space, token, { via: 'websocket', address });
    const headerToken = req.headers.authorization !== undefined;
    if (token !== undefined && !participant && headerToken) {
      return rejectUpgrade(socket, 401, 'invalid_token', 'unknown or revoked token');
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      // Protocol errors (bad frames, over maxPayload): ws has already begun the close handshake with the right code
      // (1002, 1009); terminating now would cut off its close frame, so the peer would only see 1006.
      ws.on('error', () => setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_GRACE_MS).unref());
      const options = { routing: routingModeOf(url.searchParams.get('routing')), after, exclusive: isOn(url.searchParams.get(EXCLUSIVE_PARAM)), coalesceMs };
      // A browser cannot read an HTTP 401 (it only sees a failed socket), so a bad subprotocol or query token
      // is refused after the upgrade with a system/error and close code 4401, which the SDK treats as final.
      if (token !== undefined && !participant) closeWithError(ws, 'invalid_token', 'unknown or revoked token');
      else if (participant === 'deferred') bind(ws, socket as Socket, space, { token: token!, address }, options);
      else if (participant) bind(ws, socket as Socket, space, { participant }, options);
      else awaitJoin(ws, socket as Socket, space, options);
    });
  }

  /** Waits for the first-frame join of clients that could not put the token on the upgrade. */
  function awaitJoin(ws: WebSocket, socket: Socket, defaultSpace: S, options: BindOptions): void {
    const timer = setTimeout(
      () => closeWithError(ws, 'join_timeout', `no valid token within ${defaultSpace.limits.joinTimeoutMs} ms`, CLOSE_CODES.join_timeout),
      defaultSpace.limits.joinTimeoutMs,
    );
    ws.once('message', (data: RawData) => {
      clearTimeout(timer);
      const join = parseJoinFrame(rawToString(data));
      if (!join) return closeWithError(ws, 'invalid_token', 'the first frame must be a join carrying a token');
      const space = join.space ? host.resolveSpace(join.space) : defaultSpace;
      if (!space) return closeWithError(ws, 'unknown_space', `no space "${join.space}"`, CLOSE_CODES.unknown_space);
      const address = socket.remoteAddress;
      const participant = host.authenticate(space, join.token, { via: 'websocket', address });
      if (participant === 'deferred') return bind(ws, socket, space, { token: join.token, claimedId: join.participantId, address }, options);
      if (!participant) return closeWithError(ws, 'invalid_token', 'unknown or revoked token');
      if (join.participantId !== undefined && join.participantId !== participant.id) {
        return closeWithError(ws, 'identity_mismatch', `this token does not authenticate "${join.participantId}"`);
      }
      bind(ws, socket, space, { participant }, options);
    });
    ws.once('close', () => clearTimeout(timer));
  }

  function bind(ws: WebSocket, socket: Socket, space: S, who: WsCredentials<P>, options: BindOptions): void {
    // A close the gateway begins ends the session at once (presence leave, audit), even while the socket lingers
    // to deliver the close frame to a peer that is slow to read it.
    const connection = new WsConnection(ws, socket, coalescer, space.limits.maxBufferedBytes, (close) => session.end(close));
    const session = host.connect(space, who, connection, options);
    ws.on('message', (data: RawData, binary: boolean) => {
      const frame = rawToBuffer(data);
      // A join frame on a joined connection (a client's fallback sent too late) carries a token: drop it unseen.
      if (!binary && isJoinFrame(frame)) return;
      session.receive(frame, binary);
    });
    // The code and reason of a close the gateway began (slow consumer, replaced, kicked), else the peer's.
    ws.on('close', (code: number, reason: Buffer) => {
      connection.discardHeld();
      session.end(connection.closedWith ?? { code, reason: reason.toString() });
    });
  }

  return {
    handleUpgrade,
    async close() {
      clearInterval(pinger);
      // Wait for the close handshakes (bounded), so every leave is processed — and audited — before shutdown ends.
      await Promise.all(
        [...wss.clients].map(
          (ws) =>
            new Promise<void>((done) => {
              ws.once('close', () => done());
              ws.close(CLOSE_CODES.going_away, 'gateway shutting down');
              setTimeout(() => ws.terminate(), SHUTDOWN_CLOSE_TIMEOUT_MS).unref();
            }),
        ),
      );
      wss.close();
    },
  };
}

/** From the upgrade URL: `?routing=`, the `?after=` history cursor, `?exclusive=1` and `?coalesce=`. */
export interface BindOptions {
  routing?: RoutingMode;
  after?: HistoryPosition;
  /** This connection replaces every other of the same participant (the one-connection behaviour). */
  exclusive?: boolean;
  /** `?coalesce=`: the window routine traffic is batched over; undefined = one envelope per frame. */
  coalesceMs?: number;
}

interface JoinFrame {
  token: string;
  space?: string;
  participantId?: string;
}

/** Accepts `{"type":"join",token,space,participantId}` and `{"kind":"system/join","payload":{...}}`. */
function parseJoinFrame(text: string): JoinFrame | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const body = (value.type === 'join' ? value : value.kind === 'system/join' ? value.payload : undefined) as Record<string, unknown> | undefined;
  if (!body || typeof body.token !== 'string') return undefined;
  const claimed = body.participantId ?? body.participant_id ?? body.participant;
  return {
    token: body.token,
    space: typeof body.space === 'string' ? body.space : undefined,
    participantId: typeof claimed === 'string' ? claimed : undefined,
  };
}

/** Whether a frame is a join (`{"type":"join"}` or `{"kind":"system/join"}`); parsed only when it could be one. */
function isJoinFrame(frame: Buffer): boolean {
  if (!frame.includes('"join"') && !frame.includes('system/join')) return false;
  try {
    const value = JSON.parse(frame.toString('utf8')) as { type?: unknown; kind?: unknown } | null;
    return typeof value === 'object' && value !== null && (value.type === 'join' || value.kind === 'system/join');
  } catch {
    return false;
  }
}

/** Tells a not-yet-joined peer why it is refused, then closes it (4401 unless another close code fits better). */
function closeWithError(ws: WebSocket, code: ErrorCode, message: string, closeCode: number = CLOSE_CODES.unauthorized): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.send(refusalFrame(code, message));
  ws.close(closeCode, closeReason(message));
}

/**
 * The `system/error` that tells a peer which never joined why it is refused (nothing else reaches it, so it is
 * neither numbered nor kept in history).
 */
export function refusalFrame(code: ErrorCode, message: string): string {
  return JSON.stringify({
    protocol: PROTOCOL_VERSION,
    id: randomUUID(),
    ts: new Date().toISOString(),
    from: GATEWAY_ID,
    kind: 'system/error',
    payload: { error: code, message },
  });
}

/** A close reason fits in a close frame (123 bytes). */
export function closeReason(message: string): string {
  return message.slice(0, 120);
}

/**
 * `?coalesce=<ms>`: absent is undefined (no coalescing), empty the default window, a number clamped to the
 * allowed range; NaN for anything else (refused).
 */
function parseCoalesceMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (value === '') return COALESCE_DEFAULT_MS;
  const ms = Number(value);
  return Number.isFinite(ms) ? Math.min(COALESCE_MAX_MS, Math.max(COALESCE_MIN_MS, Math.round(ms))) : NaN;
}

/** `?exclusive=1` (or `true`). */
function isOn(value: string | null): boolean {
  return value === '1' || value === 'true';
}

function rawToBuffer(data: RawData): Buffer {
  return Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

function rawToString(data: RawData): string {
  return rawToBuffer(data).toString('utf8');
}
