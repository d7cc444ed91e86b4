/**
 * Test fixtures: real remote MCP servers on ports of their own. The official everything server
 * (`@modelcontextprotocol/server-everything`, a devDependency) over Streamable HTTP or SSE, and an HTTP front that
 * lets only requests with the right `Authorization` through, as a hosted server would. Nothing in the product imports it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ANNOUNCE_PORT = fileURLToPath(new URL('./announce-port.mjs', import.meta.url));
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const START_TIMEOUT_MS = 15_000;

/** The everything server's HTTP transports, as its command line names them. */
export type EverythingMode = 'streamableHttp' | 'sse';

/**
 * The everything server in its own process, on a port the kernel picks (PORT=0) or a given one (to bring it back
 * where it was). Its endpoint is `/mcp` (Streamable HTTP) or `/sse` (SSE).
 *
 * @example
 * const server = await EverythingServer.start('streamableHttp');
 * new McpBridge({ …, server: { url: server.url } });
 */
export class EverythingServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly mode: EverythingMode,
    readonly port: number,
  ) {}

  static async start(mode: EverythingMode, port = 0): Promise<EverythingServer> {
    const child = spawn(process.execPath, ['--import', ANNOUNCE_PORT, EVERYTHING, mode], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const listening = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the everything server (${mode}) did not listen within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      child.once('exit', (code) => reject(new Error(`the everything server (${mode}) exited with ${code}`)));
      createInterface({ input: child.stderr! }).on('line', (line) => {
        const match = /^MEW_TEST_LISTENING (\d+)$/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
    });
    try {
      return new EverythingServer(child, mode, await listening);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.mode === 'sse' ? 'sse' : 'mcp'}`;
  }

  /** Kills it without a word (SIGKILL), as a host that went away would; resolves once it is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}

/**
 * An HTTP front for a server on 127.0.0.1:`target` that answers 401 to any request without `Authorization:
 * expected`, echoing what it got in its body (as careless servers do, so a test can check it goes nowhere).
 * `breakStreams: false`: a stream the server stops sending is left open, as some proxies do, so only asking finds out.
 */
export class AuthGate {
  /** Each request's `Authorization`, as it arrived. */
  readonly seen: (string | undefined)[] = [];
  private readonly server: Server;

  private constructor(target: number, expected: string, { breakStreams = true }: { breakStreams?: boolean }) {
    this.server = createServer((req, res) => {
      this.seen.push(req.headers.authorization);
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
        return res.end(`unauthorized: ${req.headers.authorization ?? 'no credentials'}`);
      }
      const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // A server that dies mid-stream breaks the stream it was sending, as a proxy that passes the failure on does.
        if (breakStreams) answer.on('aborted', () => res.destroy());
      });
      upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
  }

  static async start(target: number, expected: string, options: { breakStreams?: boolean } = {}): Promise<AuthGate> {
    const gate = new AuthGate(target, expected, options);
    gate.server.listen(0, '127.0.0.1');
    await once(gate.server, 'listening');
    return gate;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
