import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProcessState } from '../protocol';
import { backoffDelay } from '../sdk/backoff';
import { DEFAULT_RESTART_BACKOFF, type RestartBackoff } from '../launcher/supervised-process';
import { REMOTE_TRANSPORTS, type RemoteTransportName } from './bridge-defaults';
import type { LinkHandlers, LinkStatus, McpLink } from './mcp-link';
import { displayUrl, type RemoteServerSpec } from './mcp-server-spec';
import { describeRemoteError, httpStatusOf, remoteTransport, triesTheOtherTransport } from './remote-transport';

const TRANSPORT_NAMES: Record<RemoteTransportName, string> = { 'streamable-http': 'Streamable HTTP', sse: 'the SSE transport' };

/** How long a session that is closing gets to tell a Streamable HTTP server so (`DELETE`) before it is dropped. */
const TERMINATE_TIMEOUT_MS = 1_000;

/**
 * A remote MCP server: one SDK client transport per session, Streamable HTTP first and the legacy SSE transport when
 * the server refuses Streamable HTTP with a 4xx (or only the one `transport` names; once a server answered over SSE,
 * SSE is tried first, and Streamable HTTP after a 4xx, in case it moved on). A session that cannot be opened, or
 * that the connection finds lost, is opened again after the same restart backoff as a stdio server's process (the
 * project's `backoffDelay`, reset after a session that stayed up `stableUptimeMs`; more than `maxRestarts` within
 * `windowMs` leaves it `crashed` until restarted), in the same states: `starting` while connecting, `running` while
 * connected, `restarting` while waiting. A server that wants an OAuth token the space's server does not hold (`spec.oauth`
 * says so after its 401) is left `crashed` at once, until an operator's Connect restarts the bridge.
 */
export class RemoteLink implements McpLink {
  private state: ProcessState = 'starting';
  private restarts = 0;
  private restartAt?: number;
  private lastError?: string;
  /** The transport of the current (or last) attempt. */
  private kind?: RemoteTransportName;
  /** The transport of the last session that opened: tried first next time. */
  private worked?: RemoteTransportName;
  private transport?: Transport;
  /** Bumped by every attempt and stop, so the outcome of one that was overtaken is ignored. */
  private generation = 0;
  private startedAt = 0;
  private failures = 0;
  private recentRestarts: number[] = [];
  private retryTimer?: ReturnType<typeof setTimeout>;
  private readonly backoff: RestartBackoff;
  private readonly url: URL;
  private readonly where: string;

  constructor(
    private readonly spec: RemoteServerSpec,
    backoff: Partial<RestartBackoff> | undefined,
    private readonly handlers: LinkHandlers,
  ) {
    this.backoff = { ...DEFAULT_RESTART_BACKOFF, ...backoff };
    this.url = new URL(spec.url);
    this.where = displayUrl(this.url);
    // Deferred like a stdio server's first spawn: the connection finishes constructing before its first session.
    queueMicrotask(() => this.generation === 0 && void this.connect());
  }

  get status(): LinkStatus {
    return {
      state: this.state,
      restarts: this.restarts,
      ...(this.restartAt !== undefined && { restartAt: this.restartAt }),
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      ...(this.kind && { transport: this.kind }),
      url: this.where,
    };
  }

  fail(reason: string): void {
    if (this.state !== 'starting' && this.state !== 'running') return;
    this.generation++;
    this.down(reason);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.recentRestarts = [];
    this.failures = 0;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.generation++;
    clearTimeout(this.retryTimer);
    this.restartAt = undefined;
    const transport = this.transport;
    this.transport = undefined;
    // One that gave up keeps saying so; a session or a pending reconnect is what stopping ends.
    if (this.state === 'stopped' || this.state === 'crashed') return;
    this.setState('stopped');
    // The server is told before the session lets go of the transport (closing it aborts every request, a DELETE too).
    if (transport) await closeTransport(transport, true);
    this.handlers.closed();
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.restartAt = undefined;
    this.startedAt = Date.now();
    this.setState('starting');
    const kinds = this.spec.transport ? [this.spec.transport] : this.worked === 'sse' ? [...REMOTE_TRANSPORTS].reverse() : REMOTE_TRANSPORTS;
    for (const [i, kind] of kinds.entries()) {
      const transport = remoteTransport(kind, this.url, { headers: this.spec.headers ?? {}, ...(this.spec.oauth && { oauth: this.spec.oauth }) });
      this.transport = transport;
      this.kind = kind;
      try {
        await this.handlers.open(transport);
        if (generation !== this.generation) return void closeTransport(transport, true);
        // The connection has reported the session ready; running is what that state means for a link.
        this.worked = kind;
        this.lastError = undefined;
        this.state = 'running';
        return;
      } catch (error) {
        if (this.transport === transport) this.transport = undefined;
        void closeTransport(transport, false);
        if (generation !== this.generation) return;
        if (i < kinds.length - 1 && triesTheOtherTransport(error)) {
          this.handlers.log(
            `${this.where} refused ${TRANSPORT_NAMES[kind]} (${this.redact(describeRemoteError(error))}): trying ${TRANSPORT_NAMES[kinds[i + 1]]}`,
          );
          continue;
        }
        const shortfall = httpStatusOf(error) === 401 ? this.spec.oauth?.shortfall : undefined;
        if (shortfall?.required) return this.awaitAuthorization(shortfall.reason);
        return this.down(`initialize failed: ${shortfall?.reason ?? describeRemoteError(error)}`);
      }
    }
  }

  /**
   * The server wants an OAuth token only an operator's authorization can bring (Connect on the bridge's card): left
   * down at once, no backoff spent on it; the server restarts the bridge once it is authorized (or `restart()` tries again).
   */
  private awaitAuthorization(why: string): void {
    this.handlers.closed();
    const reason = this.redact(why);
    this.lastError = reason;
    this.handlers.log(`${this.where}: ${reason}`);
    this.setState('crashed');
  }

  /** The session is over or never began: closed, and opened again by the backoff (or left down when it is spent). */
  private down(why: string): void {
    const reason = this.redact(why);
    const transport = this.transport;
    this.transport = undefined;
    // The session first, so that the transport's closing is not taken for news about a live one.
    this.handlers.closed();
    if (transport) void closeTransport(transport, false);
    this.lastError = reason;
    const now = Date.now();
    this.recentRestarts = this.recentRestarts.filter((at) => now - at < this.backoff.windowMs);
    if (this.recentRestarts.length >= this.backoff.maxRestarts) {
      this.handlers.log(`${this.where}: ${reason}; ${this.backoff.maxRestarts} reconnects within ${this.backoff.windowMs / 1000} s, leaving it down`);
      return this.setState('crashed');
    }
    if (now - this.startedAt >= this.backoff.stableUptimeMs) this.failures = 0;
    const delay = backoffDelay(this.failures++, this.backoff);
    this.handlers.log(`${this.where}: ${reason}; reconnecting in ${delay} ms`);
    this.restartAt = now + delay;
    this.setState('restarting');
    this.retryTimer = setTimeout(() => {
      this.restarts++;
      this.recentRestarts.push(Date.now());
      void this.connect();
    }, delay);
  }

  /** An OAuth access token the server echoed in an error is not kept, logged or reported (header values are, by the connection). */
  private redact(text: string): string {
    return this.spec.oauth?.redact?.(text) ?? text;
  }

  private setState(state: ProcessState): void {
    this.state = state;
    this.handlers.changed();
  }
}

/**
 * Closes a session's transport; `terminate`: first tells a Streamable HTTP server the session is over (MCP's
 * `DELETE`, best effort, briefly), as a client leaving on purpose should.
 */
async function closeTransport(transport: Transport, terminate: boolean): Promise<void> {
  if (terminate && transport instanceof StreamableHTTPClientTransport) {
    const terminating = transport.terminateSession().catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([terminating, new Promise((resolve) => (timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }
  await transport.close().catch(() => undefined);
}
