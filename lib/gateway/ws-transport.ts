import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { AFTER_CURSOR_PARAM, BEARER_SUBPROTOCOL_PREFIX, CLOSE_CODES, COALESCE_PARAM, EXCLUSIVE_PARAM, type ErrorCode } from '../protocol';
import type { Gateway, Session } from './gateway';
import type { OutboundMessage } from './outbound-message';
import type { Connection, Participant, RoutingMode } from './participant';
import type { Space } from './space';
import { encodeFrame } from './ws-frame';
import { WriteCoalescer } from './write-coalescer';
import { bearerToken, rejectUpgrade, originAllowed } from './upgrade-auth';
import { COALESCE_DEFAULT_MS, COALESCE_MAX_MS, COALESCE_MIN_MS, GATEWAY_ID } from './gateway-options';
import { RoutineBatch } from './routine-batch';
import { parseCursor, type HistoryPosition } from './history-cursor';
import { PROTOCOL_VERSION } from '../protocol';
import { randomUUID } from 'node:crypto';

/** How long shutdown waits for a peer to answer the close handshake before dropping it. */
const SHUTDOWN_CLOSE_TIMEOUT_MS = 1000;
/** After a protocol error ws has sent its close frame; the peer gets this long to read it before the socket is cut. */
const CLOSE_HANDSHAKE_GRACE_MS = 1000;
/** A slow consumer's close frame sits behind its backlog: this long to read on to it before the socket is cut. */
const SLOW_CONSUMER_CLOSE_GRACE_MS = 10_000;

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
export function createWsTransport(gateway: Gateway): WsTransport {
  // Above the hard limit `ws` closes with 1009 before buffering the frame; below it we answer message_too_large.
  const hardFrameBytes = Math.max(...[...gateway.spaces.values()].map((s) => s.limits.hardFrameBytes));
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: hardFrameBytes,
    perMessageDeflate: false, // compression would make per-recipient framing and the shared broadcast frame impossible
    clientTracking: true,
    handleProtocols: (protocols) => {
      // Browsers fail the handshake unless one offered subprotocol is echoed; prefer one that carries no token.
      for (const p of protocols) if (!p.startsWith(BEARER_SUBPROTOCOL_PREFIX)) return p;
      const [first] = protocols;
      return first ?? false;
    },
  });
  const coalescer = new WriteCoalescer();
  const alive = new WeakMap<WebSocket, boolean>();
  const pingIntervalMs = Math.min(...[...gateway.spaces.values()].map((s) => s.limits.pingIntervalMs));
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
    const space = gateway.resolveSpace(url.searchParams.get('space'));
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
      return rejectUpgrade(socket, 400, 'invalid_request', `${COALESCE_PARAM} must be a number of milliseconds (${COALESCE_MIN_MS}–${COALESCE_MAX_MS}) or empty`);
    }
    const token = bearerToken(req, url, BEARER_SUBPROTOCOL_PREFIX);
    const participant = token === undefined ? undefined : gateway.authenticate(space, token, { via: 'websocket', address: req.socket.remoteAddress });
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
      const options = { routing: parseRouting(url.searchParams.get('routing')), after, exclusive: isOn(url.searchParams.get(EXCLUSIVE_PARAM)), coalesceMs };
      // A browser cannot read an HTTP 401 (it only sees a failed socket), so a bad subprotocol or query token
      // is refused after the upgrade with a system/error and close code 4401, which the SDK treats as final.
      if (token !== undefined && !participant) closeWithError(ws, 'invalid_token', 'unknown or revoked token');
      else if (participant) bind(ws, socket as Socket, space, participant, options);
      else awaitJoin(ws, socket as Socket, space, options);
    });
  }

  /** Waits for the first-frame join of clients that could not put the token on the upgrade. */
  function awaitJoin(ws: WebSocket, socket: Socket, defaultSpace: Space, options: BindOptions): void {
    const timer = setTimeout(
      () => closeWithError(ws, 'join_timeout', `no valid token within ${defaultSpace.limits.joinTimeoutMs} ms`, CLOSE_CODES.join_timeout),
      defaultSpace.limits.joinTimeoutMs,
    );
    ws.once('message', (data: RawData) => {
      clearTimeout(timer);
      const join = parseJoinFrame(rawToString(data));
      if (!join) return closeWithError(ws, 'invalid_token', 'the first frame must be a join carrying a token');
      const space = join.space ? gateway.resolveSpace(join.space) : defaultSpace;
      if (!space) return closeWithError(ws, 'unknown_space', `no space "${join.space}"`, CLOSE_CODES.unknown_space);
      const participant = gateway.authenticate(space, join.token, { via: 'websocket', address: socket.remoteAddress });
      if (!participant) return closeWithError(ws, 'invalid_token', 'unknown or revoked token');
      if (join.participantId !== undefined && join.participantId !== participant.id) {
        return closeWithError(ws, 'identity_mismatch', `this token does not authenticate "${join.participantId}"`);
      }
      bind(ws, socket, space, participant, options);
    });
    ws.once('close', () => clearTimeout(timer));
  }

  function bind(ws: WebSocket, socket: Socket, space: Space, participant: Participant, options: BindOptions): void {
    // A close the gateway begins ends the session at once (presence leave, audit), even while the socket lingers
    // to deliver the close frame to a peer that is slow to read it.
    const { coalesceMs, ...connectOptions } = options;
    const connection = new WsConnection(ws, socket, coalescer, space.limits.maxBufferedBytes, (close) => session.end(close));
    if (coalesceMs !== undefined) connection.coalesce(participant.id, coalesceMs);
    const session: Session = gateway.connect(space, participant, connection, connectOptions);
    ws.on('message', (data: RawData, binary: boolean) => session.receive(rawToBuffer(data), binary));
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

/**
 * One live socket. Writes the shared pre-framed broadcast bytes straight to the TCP socket, coalesced per turn;
 * a coalescing connection first offers each message to its routine batch.
 */
class WsConnection implements Connection {
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

/** From the upgrade URL: `?routing=`, the `?after=` history cursor and `?exclusive=1`. */
interface BindOptions {
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
  const body = (value.type === 'join' ? value : value.kind === 'system/join' ? value.payload : undefined) as
    | Record<string, unknown>
    | undefined;
  if (!body || typeof body.token !== 'string') return undefined;
  const claimed = body.participantId ?? body.participant_id ?? body.participant;
  return {
    token: body.token,
    space: typeof body.space === 'string' ? body.space : undefined,
    participantId: typeof claimed === 'string' ? claimed : undefined,
  };
}

/** Tells a not-yet-joined peer why it is refused, then closes it (4401 unless another close code fits better). */
function closeWithError(ws: WebSocket, code: ErrorCode, message: string, closeCode: number = CLOSE_CODES.unauthorized): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.send(
    JSON.stringify({
      protocol: PROTOCOL_VERSION,
      id: randomUUID(),
      ts: new Date().toISOString(),
      from: GATEWAY_ID,
      kind: 'system/error',
      payload: { error: code, message },
    }),
  );
  ws.close(closeCode, message.slice(0, 120));
}

/** `?routing=directed|broadcast` on the upgrade URL (MCPx routing modes); anything else keeps the config's mode. */
function parseRouting(value: string | null): RoutingMode | undefined {
  return value === 'directed' || value === 'broadcast' ? value : undefined;
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
