import {
  CLOSE_CODES,
  parseEnvelope,
  PROTOCOL_VERSION,
  type AnyEnvelope,
  type CatchUp,
  AFTER_CURSOR_PARAM,
  decodeWireFrame,
  encodeStreamFrame,
  type StreamData,
  HISTORY_START_CURSOR,
  type Envelope,
  type InboundEnvelope,
  type Kind,
  EXCLUSIVE_PARAM,
  COALESCE_PARAM,
} from '../protocol';
import { EventHub, type Unsubscribe } from './event-hub';
import { randomUuid } from './random-uuid';
import { DEFAULT_BACKOFF, isDocumentHidden, reconnectDelay, type BackoffOptions } from './reconnect-backoff';
import { BoundedMap } from '../collections/bounded-map';
import { SentEnvelopes } from './sent-envelopes';
import {
  CONNECT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_JOIN_MODE,
  HEARTBEAT_INTERVAL_MS,
  JOIN_FRAME_FALLBACK_MS,
  MAX_RECONNECT_ATTEMPTS,
  OUTBOUND_QUEUE_LIMIT,
  RATE_LIMIT_MAX_RETRIES,
  RECENT_ENVELOPE_IDS,
} from './sdk-defaults';
import { ConnectionClosedError, InboundFrameError, InvalidEnvelopeError } from './sdk-errors';
import { createWebSocketTransport, spaceUrl, withQuery, type OpenInfo, type Transport, type TransportFactory } from './transport';

/**
 * `disconnected` → `connecting` (socket opening) → `connected` (open, no welcome yet) → `ready` (welcome received).
 * `error` is final: the gateway refused the token (4401), kicked us (4403), named an unknown space (4404) or
 * replaced us with a newer connection of the same participant (4409), where reconnecting would only repeat it; or
 * `maxReconnectAttempts` ran out (`lastClose.reason` says so, and why the last attempt failed).
 */
export type ConnectionStatus = 'disconnected' | 'connecting' | 'connected' | 'ready' | 'error';

/** How a connection ended. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** Payload of the `status` event. */
export interface StatusChange {
  status: ConnectionStatus;
  previous: ConnectionStatus;
  /** Why the connection ended (on `disconnected` and `error`). */
  close?: CloseInfo;
  /** On `disconnected`: whether a reconnect is scheduled. */
  willReconnect?: boolean;
  /** On `disconnected` with a reconnect scheduled: the wait before it. */
  retryInMs?: number;
}

export interface MEWClientOptions {
  /** The gateway's WebSocket endpoint, e.g. `ws://localhost:3000/ws`. */
  gateway: string;
  /** The space to join (`?space=`). */
  space: string;
  /** Bearer token; the gateway maps it to my participant id. */
  token: string;
  /** Reconnect after unexpected closes (with backoff). @default true */
  reconnect?: boolean;
  /** Failed reconnect attempts in a row after which the client stops in `error`. @default MAX_RECONNECT_ATTEMPTS (forever) */
  maxReconnectAttempts?: number;
  /**
   * How to authenticate:
   * - `auth-header`: the token on the upgrade (header in Node, subprotocol in browsers), as this repo's gateway takes it;
   * - `join-frame`: a first frame `{"type":"join", space, token, participantId}`, as other MEW gateways expect;
   * - `auto`: the upgrade, then the join frame if the gateway selected no MEW subprotocol (it did not read the
   *   upgrade) and the open connection stays silent for `JOIN_FRAME_FALLBACK_MS`.
   * @default DEFAULT_JOIN_MODE ('auto')
   */
  join?: JoinMode;
  /** My participant id, for the join frame (gateways that take a join frame may ask for it). */
  participantId?: string;
  /**
   * Retries of an envelope the gateway refused with `rate_limited`, each after its `retry_after_ms`; the refusal
   * after the last one reaches listeners (and `sendAndAwait`). Retried envelopes may overtake later ones.
   * @default RATE_LIMIT_MAX_RETRIES
   */
  rateLimitRetries?: number;
  /**
   * Envelopes kept while disconnected; also how many of my sends are followed until the gateway acknowledges them
   * (beyond that the oldest is given up: `unacknowledged`). @default OUTBOUND_QUEUE_LIMIT
   */
  outboundQueueLimit?: number;
  /** Envelope ids remembered so that none is emitted twice (see the `duplicate` event). @default RECENT_ENVELOPE_IDS */
  recentEnvelopeIds?: number;
  /** An attempt without a welcome by then is retried. @default CONNECT_ATTEMPT_TIMEOUT_MS */
  connectTimeoutMs?: number;
  /** Protocol ping period where the platform can ping (Node); 0 disables. @default HEARTBEAT_INTERVAL_MS */
  heartbeatIntervalMs?: number;
  /**
   * Where the platform cannot ping (browsers): reconnect when no frame at all arrived for this long.
   * Off by default, because browsers hide the gateway's protocol pings, so a quiet space would look dead.
   */
  idleTimeoutMs?: number;
  /** Reconnect delay tuning. */
  backoff?: Partial<BackoffOptions>;
  /** Connection factory (tests inject failures here). @default createWebSocketTransport */
  transport?: TransportFactory;
  /**
   * What to ask the gateway's history for when a connection opens (`after=` the last cursor seen):
   * - `missed`: on every reconnect, what happened while I was away (before the welcome, in order, no duplicates);
   * - `retained`: that, and on the first connect everything the gateway retained (dashboards showing the past);
   * - `none`: never (clients that keep no state across connections).
   * @default 'missed'
   */
  catchUp?: CatchUpMode;
  /**
   * Be this participant's only connection: the gateway closes its other tabs and devices (4409) when this one joins.
   * By default a participant may be connected from several at once, each receiving everything. @default false
   */
  exclusive?: boolean;
  /**
   * Ask the gateway to coalesce (`?coalesce=<ms>`): routine traffic (stream frames, reasoning thoughts, status
   * reports, presence, chat not addressed to me) arrives batched, at most once per this many ms, while everything
   * else still arrives at once, after what was held. For dashboards that watch busy spaces; events are the same,
   * in the same order. The gateway clamps the window to its range. @default off (one envelope per frame)
   */
  coalesceMs?: number;
}

export type CatchUpMode = 'missed' | 'retained' | 'none';

export type JoinMode = 'auth-header' | 'join-frame' | 'auto';

/** An envelope as `send` accepts it: `protocol` and `id` are filled in when absent, `from` and `ts` by the gateway. */
export type OutgoingEnvelope = InboundEnvelope;

/** What `send` returns: the envelope as sent, with its `id` (the key for correlating replies). */
export type SentEnvelope = OutgoingEnvelope & { id: string };

/** Payload of the `unacknowledged` event. */
export interface Unacknowledged {
  /** The ids of my envelopes, in the order they were sent. */
  ids: string[];
  /** Why their fate can no longer be learned. */
  reason: string;
}

/**
 * The client's events; besides these, every envelope kind is an event carrying envelopes of that kind.
 *
 * Each envelope id is emitted once: an envelope whose id was already emitted (a catch-up overlapping what was seen,
 * the gateway re-delivering my original when I resend an envelope in doubt, a history replayed after a gateway
 * restart) still moves `cursor` and settles my send, but reaches only `duplicate` listeners. The ids are
 * remembered across reconnects, the latest `recentEnvelopeIds` of them.
 *
 * My sends are followed until the gateway echoes or refuses them. One written to a connection that dropped before
 * either is sent again, same id and text, after the next connection's welcome (the gateway recognises a repeated id
 * and answers with the original, so it happens once). `unacknowledged` names the sends nobody will learn more about:
 * those in doubt when `disconnect()` is called or the connection ends for good (`error`, or a drop with `reconnect:
 * false`), and those given up because more than `outboundQueueLimit` were awaiting acknowledgement. The gateway may
 * or may not have accepted them.
 */
export type ClientEvents = {
  status: StatusChange;
  /** Each `system/welcome` (the first of a connection, and fresh ones after capability changes). */
  welcome: Envelope<'system/welcome'>;
  /** After a catch-up from history (just before the welcome that reports it): whether anything was lost. */
  'catch-up': CatchUp;
  /** Every valid envelope received, my own echoes included. */
  message: AnyEnvelope;
  /** Every `#streamId#data` frame received. */
  'stream/data': StreamData;
  /** An envelope whose id was already emitted, delivered again: not emitted as `message` or as its kind. */
  duplicate: AnyEnvelope;
  /** My sends whose fate can no longer be learned (see above): the gateway may or may not have accepted them. */
  unacknowledged: Unacknowledged;
  /** Frames that are not valid envelopes, and listener failures. Nothing is thrown at the socket. */
  error: Error;
} & { [K in Kind]: Envelope<K> };

/** Close codes after which reconnecting cannot help (see `ConnectionStatus`). */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([CLOSE_CODES.unauthorized, CLOSE_CODES.kicked, CLOSE_CODES.unknown_space, CLOSE_CODES.replaced]);

/** RFC 6455: the peer vanished without a close frame; what we report when we give up on a connection ourselves. */
const ABNORMAL_CLOSE = 1006;
const NORMAL_CLOSE = CLOSE_CODES.normal;

/**
 * Layer 1 of the SDK: one participant's connection to a space. Connects with a token (on the upgrade, or in a
 * join frame for other MEW gateways), keeps a status, emits typed events, reconnects (forever by default) with
 * jittered exponential backoff (slower in a hidden tab), queues `send`s while the connection is down and flushes
 * them after the next welcome, sends again what a dropped connection left unacknowledged, retries what the gateway
 * rate-limited, emits each envelope id once, detects dead connections, and carries `#streamId#data` frames. Runs
 * unchanged in Node and browsers.
 *
 * @example
 * const client = new MEWClient({ gateway: 'ws://localhost:3000/ws', space: 'demo', token });
 * client.on('chat', (env) => console.log(env.from, env.payload.text));
 * await client.connect();
 * client.send({ kind: 'chat', payload: { text: 'hello' } });
 */
export class MEWClient {
  // A failing listener is reported as an `error` event; one failing in an `error` listener can only go to the console.
  private readonly hub = new EventHub<ClientEvents>((error, event) =>
    event === 'error' ? console.error('[mew-sdk] error listener failed:', error) : this.reportError(error),
  );
  /**
   * What became of each envelope I sent: queued, written, retried, accepted or refused, and who waits on it
   * (`MEWParticipant.sendAndAwait`, `mcpRequest`). Resent from here after a drop, and after `rate_limited`.
   */
  readonly sent: SentEnvelopes;
  private readonly url: string;
  private readonly backoff: Readonly<BackoffOptions>;
  private readonly createTransport: TransportFactory;
  private _status: ConnectionStatus = 'disconnected';
  private _welcome?: Envelope<'system/welcome'>;
  private _lastClose?: CloseInfo;
  private _cursor?: string;
  private transport?: Transport;
  /** Bumped for every new transport: events of an abandoned one carry an old value and are ignored. */
  private generation = 0;
  /** Failed attempts since the last welcome; drives the backoff. */
  private attempt = 0;
  /** Between `connect()` and `disconnect()` or a final close. */
  private started = false;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private attemptTimer?: ReturnType<typeof setTimeout>;
  private joinTimer?: ReturnType<typeof setTimeout>;
  /** Ids of the envelopes emitted lately: one delivered again is not emitted again. */
  private readonly dispatched: BoundedMap<string, true>;
  private livenessTimer?: ReturnType<typeof setInterval>;
  private heardSinceTick = true;
  private removeVisibilityListener?: () => void;

  constructor(private readonly options: MEWClientOptions) {
    let url = spaceUrl(options.gateway, options.space);
    if (options.exclusive) url = withQuery(url, EXCLUSIVE_PARAM, '1');
    if (options.coalesceMs !== undefined) url = withQuery(url, COALESCE_PARAM, String(options.coalesceMs));
    this.url = url;
    this.sent = new SentEnvelopes({
      limit: options.outboundQueueLimit ?? OUTBOUND_QUEUE_LIMIT,
      rateLimitRetries: options.rateLimitRetries ?? RATE_LIMIT_MAX_RETRIES,
      write: (text) => this.write(text),
      unacknowledged: (lost) => this.hub.emit('unacknowledged', lost),
    });
    this.dispatched = new BoundedMap(options.recentEnvelopeIds ?? RECENT_ENVELOPE_IDS);
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.createTransport = options.transport ?? createWebSocketTransport;
  }

  /**
   * The connection status (see `ConnectionStatus`).
   *
   * @example
   * if (client.status === 'error') showLogin(client.lastClose?.reason);
   */
  get status(): ConnectionStatus {
    return this._status;
  }

  /**
   * My participant id, from the latest welcome (the gateway maps my token to it).
   *
   * @example
   * const me = client.participantId; // 'alice'
   */
  get participantId(): string | undefined {
    return this._welcome?.payload.you.id;
  }

  /**
   * The latest welcome: my capabilities, who else is here, open streams.
   *
   * @example
   * client.welcome?.payload.participants.map((p) => p.id);
   */
  get welcome(): Envelope<'system/welcome'> | undefined {
    return this._welcome;
  }

  /**
   * How the last connection ended.
   *
   * @example
   * client.lastClose; // { code: 4409, reason: 'replaced by a newer connection of the same participant' }
   */
  get lastClose(): CloseInfo | undefined {
    return this._lastClose;
  }

  /**
   * The history cursor of the last envelope received: where a catch-up resumes.
   *
   * @example
   * localStorage.setItem('cursor', client.cursor ?? '');
   */
  get cursor(): string | undefined {
    return this._cursor;
  }

  /**
   * Envelopes waiting for the connection.
   *
   * @example
   * if (client.queuedCount > 0) showBadge(`${client.queuedCount} unsent`);
   */
  get queuedCount(): number {
    return this.sent.queuedCount;
  }

  /**
   * Starts connecting (and reconnecting whenever the connection drops) and resolves once the welcome arrives.
   * Rejects with `ConnectionClosedError` if the gateway refuses us for good first.
   *
   * @example
   * await client.connect();
   */
  connect(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.watchVisibility();
      this.open();
    }
    return this.ready();
  }

  /**
   * Resolves when the client is (or next becomes) `ready`; rejects with `ConnectionClosedError` when it stops
   * for good instead (final close, `disconnect()`, or a drop with `reconnect: false`).
   *
   * @example
   * client.connect();
   * await client.ready();
   */
  ready(): Promise<void> {
    if (this._status === 'ready') return Promise.resolve();
    if (this._status === 'error') return Promise.reject(new ConnectionClosedError(this._lastClose!.code, this._lastClose!.reason));
    return new Promise((resolve, reject) => {
      const off = this.on('status', (change) => {
        if (change.status === 'ready') {
          off();
          resolve();
        } else if (change.status === 'error' || (change.status === 'disconnected' && !change.willReconnect)) {
          off();
          reject(new ConnectionClosedError(change.close?.code ?? NORMAL_CLOSE, change.close?.reason ?? ''));
        }
      });
    });
  }

  /**
   * Closes the connection and stops reconnecting. Envelopes still queued stay queued for a later `connect()`; those
   * sent but not yet acknowledged are given up (`unacknowledged`).
   *
   * @example
   * client.disconnect();
   */
  disconnect(): void {
    if (!this.started && !this.transport) return;
    this.stop();
    this.abandonTransport(NORMAL_CLOSE, 'client disconnected');
    this._lastClose = { code: NORMAL_CLOSE, reason: 'disconnect() called' };
    this.endSends(this._lastClose, 'disconnect() was called before the gateway acknowledged them');
    this.setStatus('disconnected', { close: this._lastClose, willReconnect: false });
  }

  /**
   * Subscribes to an event: `status`, `welcome`, `message`, `stream/data`, `duplicate`, `unacknowledged`, `error`,
   * or any envelope kind (see `ClientEvents`).
   *
   * @example
   * const off = client.on('mcp/request', (env) => console.log(env.payload.method));
   * off();
   */
  on<E extends keyof ClientEvents>(event: E, listener: (value: ClientEvents[E]) => void): Unsubscribe {
    return this.hub.on(event, listener);
  }

  /**
   * Sends an envelope now, or queues it until the next welcome when the connection is not ready. Fills
   * `protocol` and `id` (a UUID, the key for correlating replies) and returns the envelope as sent. Sent again
   * (same id) after a reconnect if the connection drops before the gateway acknowledged it. Passing an `id` already
   * sent repeats that envelope: the gateway answers with the original instead of routing it twice. Throws
   * `InvalidEnvelopeError` for an invalid envelope, `OutboundQueueFullError` when the queue is full and
   * `ConnectionClosedError` after a final close.
   *
   * @example
   * const sent = client.send({ kind: 'chat', to: ['bob'], payload: { text: 'hi' } });
   * console.log(sent.id);
   */
  send(envelope: OutgoingEnvelope): SentEnvelope {
    if (this._status === 'error') throw new ConnectionClosedError(this._lastClose!.code, this._lastClose!.reason);
    const full = { protocol: PROTOCOL_VERSION, ...envelope, id: envelope.id ?? randomUuid() } as SentEnvelope;
    const parsed = parseEnvelope(full, { inbound: true });
    if (!parsed.ok) throw new InvalidEnvelopeError(parsed.issues);
    this.sent.send(full, JSON.stringify(full));
    return full;
  }

  /**
   * Writes one `#streamId#data` frame (text for strings, binary for bytes). Stream frames are not queued: a
   * stream does not survive a reconnect, so while not ready this returns false and sends nothing.
   *
   * @example
   * client.sendStreamData(streamId, 'chunk 1');
   */
  sendStreamData(streamId: string, data: string | Uint8Array): boolean {
    const frame = encodeStreamFrame(streamId, data);
    if (this._status !== 'ready' || !this.transport!.isOpen()) return false;
    this.transport!.send(frame);
    return true;
  }

  /** Writes now (true), or not (false: `sent` keeps it queued for the next welcome). */
  private write(text: string): boolean {
    // A socket that is already closing would swallow it; queue it for the connection that replaces this one.
    if (this._status !== 'ready' || !this.transport!.isOpen()) return false;
    this.transport!.send(text);
    return true;
  }

  private open(): void {
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    this.setStatus('connecting');
    this.attemptTimer = setTimeout(() => this.dropConnection(`no welcome within ${this.connectTimeoutMs} ms`), this.connectTimeoutMs);
    try {
      this.transport = this.createTransport(
        { url: this.connectionUrl(), ...(this.joinMode !== 'join-frame' && { token: this.options.token }) },
        {
          onOpen: (info) => current() && this.handleOpen(info),
          onMessage: (data) => current() && this.handleFrame(data),
          onClose: (code, reason) => current() && this.handleClose({ code, reason }),
          onHeartbeat: () => {
            if (current()) this.heardSinceTick = true;
          },
        },
      );
    } catch (error) {
      this.handleClose({ code: ABNORMAL_CLOSE, reason: `could not open a connection: ${(error as Error).message}` });
    }
  }

  /** The space URL, with `after=` when there is history to ask for (see `catchUp`). */
  private connectionUrl(): string {
    const mode = this.options.catchUp ?? 'missed';
    const after = mode === 'none' ? undefined : (this._cursor ?? (mode === 'retained' ? HISTORY_START_CURSOR : undefined));
    return after === undefined ? this.url : withQuery(this.url, AFTER_CURSOR_PARAM, after);
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? CONNECT_ATTEMPT_TIMEOUT_MS;
  }

  private get joinMode(): JoinMode {
    return this.options.join ?? DEFAULT_JOIN_MODE;
  }

  private handleOpen(info: OpenInfo | undefined): void {
    this.setStatus('connected');
    this.startLiveness();
    if (this.joinMode === 'join-frame') this.sendJoinFrame();
    // A gateway that selected a MEW subprotocol has the upgrade's token: a join frame would only put it in a frame.
    else if (this.joinMode === 'auto' && !info?.mewHandshake) this.joinTimer = setTimeout(() => this.sendJoinFrame(), JOIN_FRAME_FALLBACK_MS);
  }

  /** The first-frame join of gateways that ignore the upgrade's token (they send nothing before it). */
  private sendJoinFrame(): void {
    const { space, token, participantId } = this.options;
    this.transport?.send(JSON.stringify({ type: 'join', space, token, ...(participantId !== undefined && { participantId }) }));
  }

  private handleFrame(data: string | ArrayBuffer | Uint8Array): void {
    this.heardSinceTick = true;
    // Any frame means the gateway took the upgrade's token: a join frame now would be an invalid envelope.
    clearTimeout(this.joinTimer);
    const frame = decodeWireFrame(data);
    if (frame.type === 'stream') return this.hub.emit('stream/data', frame.stream);
    let value: unknown;
    try {
      value = JSON.parse(frame.text);
    } catch {
      return this.reportError(new InboundFrameError(`dropped a frame that is not JSON: ${frame.text.slice(0, 80)}`));
    }
    if (!Array.isArray(value)) return this.handleEnvelope(value);
    // A coalesced batch: envelopes, and text stream frames as JSON strings, in the order the gateway held them.
    const generation = this.generation;
    for (const item of value) {
      if (generation !== this.generation) return; // a listener closed this connection: the rest belongs to no one
      if (typeof item !== 'string') this.handleEnvelope(item);
      else this.handleBatchedStreamFrame(item);
    }
  }

  private handleBatchedStreamFrame(text: string): void {
    const frame = decodeWireFrame(text);
    if (frame.type === 'stream') this.hub.emit('stream/data', frame.stream);
    else this.reportError(new InboundFrameError(`dropped a batch item that is neither an envelope nor a stream frame: ${text.slice(0, 80)}`));
  }

  private handleEnvelope(value: unknown): void {
    const parsed = parseEnvelope(value);
    if (!parsed.ok) {
      return this.reportError(new InboundFrameError(`dropped an invalid envelope: ${new InvalidEnvelopeError(parsed.issues).message}`));
    }
    this.dispatch(parsed.envelope);
  }

  private dispatch(envelope: AnyEnvelope): void {
    const repeat = this.dispatched.has(envelope.id);
    // A repeat after the welcome is the gateway answering a resend with the original, cursor and all: that cursor is
    // behind what this connection has seen, so it must not move ours back. (Before the welcome, a catch-up is in order.)
    if (envelope.cursor !== undefined && !(repeat && this._status === 'ready')) this._cursor = envelope.cursor;
    if (this.sent.observe(envelope, this.participantId)) return; // a rate-limited send of mine, retried later
    if (repeat) return this.hub.emit('duplicate', envelope);
    this.dispatched.set(envelope.id, true);
    const generation = this.generation;
    if (envelope.kind === 'system/welcome') {
      this._welcome = envelope;
      if (envelope.payload.catch_up) this.hub.emit('catch-up', envelope.payload.catch_up);
      this.hub.emit('welcome', envelope);
    }
    this.hub.emit('message', envelope);
    (this.hub.emit as (event: Kind, value: AnyEnvelope) => void)(envelope.kind, envelope);
    // Only the first welcome of a connection makes it ready; later ones (capability changes) just update it.
    // (Unless a listener closed this connection meanwhile.)
    if (envelope.kind === 'system/welcome' && this._status !== 'ready' && generation === this.generation) {
      clearTimeout(this.attemptTimer);
      this.attempt = 0;
      this.flush();
      this.setStatus('ready');
    }
  }

  /** On a connection's first welcome, before `ready` (so a `status` listener's sends come after): see `SentEnvelopes.flush`. */
  private flush(): void {
    const transport = this.transport!;
    this.sent.flush((text) => transport.send(text));
  }

  /** The end of the connection for good: the sends in doubt are given up (`unacknowledged`), and whoever waits fails. */
  private endSends(close: CloseInfo, reason: string): void {
    this.sent.giveUpInDoubt(reason);
    this.sent.failAll(new ConnectionClosedError(close.code, close.reason));
  }

  private handleClose(close: CloseInfo): void {
    this.stopConnectionTimers();
    this.transport = undefined;
    this._lastClose = close;
    const maxAttempts = this.options.maxReconnectAttempts ?? MAX_RECONNECT_ATTEMPTS;
    const inDoubt = 'the connection ended for good before the gateway acknowledged them';
    if (FINAL_CLOSE_CODES.has(close.code)) {
      this.stop();
      this.endSends(close, inDoubt);
      this.setStatus('error', { close });
    } else if (this.options.reconnect === false) {
      this.stop();
      this.endSends(close, inDoubt);
      this.setStatus('disconnected', { close, willReconnect: false });
    } else if (this.attempt >= maxAttempts) {
      this.stop();
      this._lastClose = { code: close.code, reason: `gave up after ${this.attempt} reconnect attempts (last: ${close.reason || close.code})` };
      this.endSends(this._lastClose, inDoubt);
      this.setStatus('error', { close: this._lastClose });
    } else {
      this.scheduleReconnect(close);
    }
  }

  /** No more reconnects until the next `connect()`. */
  private stop(): void {
    this.started = false;
    this.removeVisibilityListener?.();
    this.removeVisibilityListener = undefined;
  }

  private scheduleReconnect(close: CloseInfo): void {
    const delay = reconnectDelay(this.attempt++, { hidden: isDocumentHidden(), options: this.backoff });
    this.setStatus('disconnected', { close, willReconnect: true, retryInMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }

  /** Gives up on the current connection ourselves (dead peer, no welcome) and goes through the normal retry path. */
  private dropConnection(reason: string): void {
    this.abandonTransport(NORMAL_CLOSE, reason);
    this.handleClose({ code: ABNORMAL_CLOSE, reason });
  }

  /** Closes the transport and makes its late events stale. */
  private abandonTransport(code: number, reason: string): void {
    this.generation++;
    this.stopConnectionTimers();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const transport = this.transport;
    this.transport = undefined;
    transport?.close(code, reason);
  }

  private stopConnectionTimers(): void {
    clearTimeout(this.attemptTimer);
    clearTimeout(this.joinTimer);
    clearInterval(this.livenessTimer);
    this.livenessTimer = undefined;
  }

  /**
   * Liveness. Where the transport can ping (Node's `ws`), ping every `heartbeatIntervalMs`; a tick that finds
   * nothing heard since the previous one (no frame, no pong, no server ping) drops the connection. Browsers cannot
   * send pings and do not surface the gateway's, so there the check runs only when the caller sets
   * `idleTimeoutMs`, on any inbound frame. We never invent envelopes as probes: every kind has side effects
   * for others (a `participant/status` lands in dashboards), and the gateway has no app-level ping kind.
   */
  private startLiveness(): void {
    const transport = this.transport!;
    const period = transport.ping ? (this.options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS) : this.options.idleTimeoutMs;
    if (!period) return;
    this.heardSinceTick = true;
    this.livenessTimer = setInterval(() => {
      if (!this.heardSinceTick) return this.dropConnection(`nothing heard from the gateway for ${period} ms`);
      this.heardSinceTick = false;
      transport.ping?.();
    }, period);
  }

  /** A tab coming back into view retries at once instead of finishing a long hidden-tab wait. */
  private watchVisibility(): void {
    const doc = (globalThis as { document?: Pick<Document, 'addEventListener' | 'removeEventListener'> }).document;
    if (!doc?.addEventListener) return;
    const onChange = () => {
      if (isDocumentHidden() || !this.retryTimer) return;
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.open();
    };
    doc.addEventListener('visibilitychange', onChange);
    this.removeVisibilityListener = () => doc.removeEventListener('visibilitychange', onChange);
  }

  private setStatus(status: ConnectionStatus, extra: Omit<StatusChange, 'status' | 'previous'> = {}): void {
    const previous = this._status;
    if (previous === status) return;
    this._status = status;
    this.hub.emit('status', { status, previous, ...extra });
  }

  private reportError(error: unknown): void {
    this.hub.emit('error', error instanceof Error ? error : new Error(String(error)));
  }
}
