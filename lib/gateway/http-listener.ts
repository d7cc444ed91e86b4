import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerClientError, sendError } from './http-util';

/** The WebSocket path of the gateway. Nothing else (no page, no rewrite) may use it. */
export const GATEWAY_WS_PATH = '/ws';
/**
 * Upgrades the gateway takes: `/ws`, and `/`, where the reference implementation's clients dial
 * (`ws://host:port`, no path). Next answers no upgrade on `/` (its dev HMR is on `/_next/…`).
 */
const GATEWAY_UPGRADE_PATHS: ReadonlySet<string> = new Set([GATEWAY_WS_PATH, '/']);

export interface HttpListenerOptions {
  /** Answers a request; false hands it to `fallback`. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> | boolean;
  /** Takes an upgrade on `GATEWAY_WS_PATH` (or `/`). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Requests nobody else answers (the Next app). Default: a JSON 404. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Upgrades on other paths: in dev, Next's HMR listener handles them itself, so they must be left alone. */
  leaveOtherUpgrades?: boolean;
}

/** Where a listener is bound. */
export interface BoundAddress {
  port: number;
  /** `http://host:port` (IPv6 hosts bracketed). */
  httpUrl: string;
  /** `ws://host:port/ws`. */
  wsUrl: string;
}

/**
 * The one HTTP server of a gateway process, single or cluster node: its handler, then the fallback; upgrades on
 * `/ws` to the gateway and no other (in production nobody else answers them, so an unanswered socket would hang).
 */
export class HttpListener {
  readonly server: Server;

  constructor(options: HttpListenerOptions) {
    const fallback = options.fallback ?? ((_req, res) => sendError(res, 'not_found', 'no such endpoint'));
    this.server = createServer((req, res) => {
      Promise.resolve(options.handle(req, res)).then(
        (handled) => {
          if (!handled) fallback(req, res);
        },
        (e) => {
          console.error('[gateway] request failed:', e);
          if (!res.headersSent) sendError(res, 'internal_error', 'request failed');
        },
      );
    });
    this.server.on('clientError', answerClientError);
    this.server.on('upgrade', (req, socket, head) => {
      const { pathname } = new URL(req.url ?? '/', 'http://localhost');
      if (GATEWAY_UPGRADE_PATHS.has(pathname)) options.upgrade(req, socket, head);
      else if (!options.leaveOtherUpgrades) socket.destroy();
    });
  }

  /** Resolves with where it listens (port 0: an ephemeral port). */
  listen(port: number, host: string): Promise<BoundAddress> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        const bound = typeof address === 'object' && address ? address.port : port;
        const authority = `${host.includes(':') ? `[${host}]` : host}:${bound}`;
        resolve({ port: bound, httpUrl: `http://${authority}`, wsUrl: `ws://${authority}${GATEWAY_WS_PATH}` });
      });
    });
  }

  /** Closes every connection and stops listening. */
  close(): Promise<void> {
    return new Promise((done) => {
      this.server.closeAllConnections();
      this.server.close(() => done());
    });
  }
}
