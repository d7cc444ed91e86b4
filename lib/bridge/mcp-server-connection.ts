import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError as SdkMcpError, ToolListChangedNotificationSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { JSONRPC_ERROR_CODES, toolRisk } from '../protocol';
import type { JsonRpcError, McpAnswer } from '../sdk/local-mcp-server';
import type { RestartBackoff } from '../launcher/supervised-process';
import {
  FORWARD_TIMEOUT_MS,
  INITIALIZE_TIMEOUT_MS,
  MGP_ERROR_CODES,
  MGP_EXTENSIONS,
  MGP_VERSION,
  PROBE_TIMEOUT_MS,
  REMOTE_PING_INTERVAL_MS,
  TOOLS_LIST_MAX_PAGES,
} from './bridge-defaults';
import type { LinkStatus, McpLink } from './mcp-link';
import { isRemoteServer, type McpServerSpec } from './mcp-server-spec';
import { headerSecrets, redactor } from './redact';
import { RemoteLink } from './remote-link';
import { describeRemoteError } from './remote-transport';
import { StdioLink } from './stdio-link';

export type { McpServerSpec, RemoteServerSpec, StdioServerSpec } from './mcp-server-spec';

/** `ready`: initialised, tools listed; `starting`: its process is up or its URL being connected, `initialize` not yet answered; else the link's state. */
export type McpServerState = 'starting' | 'ready' | Exclude<LinkStatus['state'], 'starting' | 'running'>;

/** What an operator (and the bridge's `participant/status`) sees of the server. */
export interface McpServerStatus extends Omit<LinkStatus, 'state'> {
  state: McpServerState;
  /** `serverInfo` of its `initialize` answer. */
  server?: { name: string; version?: string };
  tools: number;
  /** MGP extensions both sides speak, when the server answered with `capabilities.mgp` (mgp-0.5.2 §2.4). */
  mgpExtensions?: string[];
  /** Why it is not ready, when something went wrong (`initialize` failed, the server stopped answering). Secrets redacted. */
  lastError?: string;
}

export interface McpServerConnectionOptions {
  server: McpServerSpec;
  /** The server's stderr, stray stdout, and the connection's own notes (a remote server's header values redacted). */
  log(line: string): void;
  /** Told on every change of `status`. */
  onChange?(status: McpServerStatus): void;
  /** Told when the server's tools changed (a new list after `notifications/tools/list_changed` or a restart). */
  onToolsChanged?(): void;
  backoff?: Partial<RestartBackoff>;
  /** @default INITIALIZE_TIMEOUT_MS */
  initializeTimeoutMs?: number;
  /** @default FORWARD_TIMEOUT_MS */
  forwardTimeoutMs?: number;
  /** How often a ready session's server is pinged to find out it went away; 0 for never. @default REMOTE_PING_INTERVAL_MS for a remote server, 0 for stdio */
  pingIntervalMs?: number;
}

/** MCP methods a space may ask the server through the bridge; lifecycle and client-side methods stay the bridge's own. */
const FORWARDED_METHODS = new Set([
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'ping',
]);

const anyResult = z.looseObject({});
const toolsPage = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), annotations: z.looseObject({}).optional(), security: z.unknown().optional() })),
  nextCursor: z.string().optional(),
});
type ListedTool = z.infer<typeof toolsPage>['tools'][number];

interface Session {
  client: Client;
  ready: boolean;
  /** A `ping` checking whether the server is still there is under way. */
  probing: boolean;
  pinger?: ReturnType<typeof setInterval>;
}

/**
 * One MCP server as the bridge uses it, over stdio (a child started and restarted with backoff) or at a URL
 * (Streamable HTTP or SSE, reconnected with the same backoff): one official SDK `Client` session at a time,
 * initialised with MGP's `security` offer, its tools listed (every page) and kept current on
 * `notifications/tools/list_changed`, and requests forwarded. A request never hangs: while the server is down it is
 * answered at once with MGP's `SERVER_NOT_READY`/`SERVER_RESTARTING`, and a server that goes away mid-call fails the
 * call. A transport error (and, for a remote server, every `pingIntervalMs`) makes the connection `ping` the server;
 * one that does not answer has lost its session, which the link then brings back.
 *
 * @example
 * const fs = new McpServerConnection({ server: { command: 'mcp-server-filesystem', args: ['./sandbox'] }, log: console.error });
 * const remote = new McpServerConnection({ server: { url: 'https://mcp.example.com/mcp', headers: { Authorization: `Bearer ${key}` } }, log: console.error });
 * await fs.request('tools/call', { name: 'list_directory', arguments: { path: '.' } });
 */
export class McpServerConnection {
  private readonly link: McpLink;
  private session?: Session;
  private tools: ListedTool[] = [];
  private server?: McpServerStatus['server'];
  private mgpExtensions?: string[];
  private readonly settledWaiters = new Set<() => void>();
  private readonly initializeTimeoutMs: number;
  private readonly forwardTimeoutMs: number;
  private readonly pingIntervalMs: number;
  private readonly redact: (text: string) => string;
  private readonly log: (line: string) => void;

  constructor(private readonly options: McpServerConnectionOptions) {
    this.initializeTimeoutMs = options.initializeTimeoutMs ?? INITIALIZE_TIMEOUT_MS;
    this.forwardTimeoutMs = options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;
    const { server } = options;
    this.pingIntervalMs = options.pingIntervalMs ?? (isRemoteServer(server) ? REMOTE_PING_INTERVAL_MS : 0);
    this.redact = redactor(isRemoteServer(server) ? headerSecrets(server.headers) : []);
    this.log = (line) => options.log(this.redact(line));
    const handlers = {
      open: (transport: Transport) => this.open(transport),
      closed: () => this.closeSession(),
      changed: () => this.changed(),
      log: this.log,
    };
    this.link = isRemoteServer(server) ? new RemoteLink(server, options.backoff, handlers) : new StdioLink(server, options.backoff, handlers);
  }

  get status(): McpServerStatus {
    const { state, lastError, ...link } = this.link.status;
    const up = state === 'starting' || state === 'running';
    const mapped: McpServerState = up ? (this.session?.ready ? 'ready' : 'starting') : state;
    return {
      ...link,
      state: mapped,
      ...(this.server && { server: this.server }),
      tools: this.tools.length,
      ...(this.mgpExtensions && { mgpExtensions: this.mgpExtensions }),
      ...(mapped !== 'ready' && lastError !== undefined && { lastError: this.redact(lastError) }),
    };
  }

  /**
   * Answers one MCP request from the space: `tools/list` from the current list (with MGP risk on every tool), the
   * methods in `FORWARDED_METHODS` by asking the server. Never throws.
   */
  async request(method: string, params: unknown): Promise<McpAnswer> {
    if (this.status.state === 'starting') await this.settled();
    const session = this.session;
    if (!session?.ready) return { error: this.notReadyError() };
    if (method === 'tools/list') return { result: { tools: this.tools.map(withSecurity) } };
    if (!FORWARDED_METHODS.has(method)) {
      return { error: { code: JSONRPC_ERROR_CODES.methodNotFound, message: `method not found: ${method}` } };
    }
    try {
      const request = { method, ...(params !== undefined && { params: params as Record<string, unknown> }) };
      return { result: await session.client.request(request, anyResult, { timeout: this.forwardTimeoutMs }) };
    } catch (error) {
      return { error: this.toJsonRpcError(error) };
    }
  }

  /** Starts the server again now (after a crash, or to pick up a new binary); a running one is restarted. */
  restart(): Promise<void> {
    return this.link.restart();
  }

  /** Stops the server (SIGTERM, then SIGKILL; a remote session is ended) and keeps it down. */
  async stop(): Promise<void> {
    await this.link.stop();
    this.closeSession();
  }

  /** A session over a link's new transport: initialised, its tools listed, then ready. Rejects when it cannot be. */
  private async open(transport: Transport): Promise<void> {
    this.closeSession();
    // MGP rides on `initialize` as `capabilities.mgp` (mgp-0.5.2 §2.2); MCP servers that do not know it ignore it.
    const capabilities = { mgp: { version: MGP_VERSION, extensions: [...MGP_EXTENSIONS] } } as ClientCapabilities;
    const client = new Client({ name: 'mew-bridge', version: MGP_VERSION }, { capabilities });
    const session: Session = { client, ready: false, probing: false };
    this.session = session;
    // The SDK's parsed `initialize` result drops what MCP does not define (MGP's `capabilities.mgp`), so the raw one
    // is kept: the first response on a fresh transport is initialize's, the only request sent before `connect` resolves.
    let initializeResult: Record<string, unknown> | undefined;
    transport.onmessage = (message) => {
      if (initializeResult === undefined && 'result' in message) initializeResult = message.result;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.listTools(session).then(
        () => this.options.onToolsChanged?.(),
        (error) => this.log(`listing tools after list_changed failed: ${messageOf(error)}`),
      );
    });
    try {
      await client.connect(transport, { timeout: this.initializeTimeoutMs });
      const info = client.getServerVersion();
      this.server = info && { name: info.name, ...(info.version && { version: info.version }) };
      this.mgpExtensions = negotiatedMgp(initializeResult);
      await this.listTools(session);
      if (this.session !== session) throw new Error('the session ended while it was initialised');
    } catch (error) {
      if (this.session === session) this.closeSession();
      throw error;
    }
    client.onerror = (error) => this.probe(session, error);
    if (this.pingIntervalMs > 0) session.pinger = setInterval(() => this.probe(session), this.pingIntervalMs);
    client.onclose = () => {
      if (this.session === session) this.link.fail('the connection to the MCP server closed');
    };
    session.ready = true;
    this.log(`ready: ${this.server?.name ?? 'MCP server'} with ${this.tools.length} tools`);
    this.changed();
    this.options.onToolsChanged?.();
  }

  /**
   * A transport reported an error (a dropped stream, a failed request), or it is time to check: asks the server for a
   * `ping`. One that answers, even with an error of its own, is still there; otherwise its session is lost and the
   * link opens a new one.
   */
  private probe(session: Session, cause?: Error): void {
    if (!session.ready || session.probing || this.session !== session) return;
    session.probing = true;
    session.client.ping({ timeout: PROBE_TIMEOUT_MS }).then(
      () => void (session.probing = false),
      (failure: unknown) => {
        session.probing = false;
        if (this.session !== session || answeredByServer(failure)) return;
        const reported = cause ? `${describeRemoteError(cause)}; ` : '';
        this.link.fail(`the MCP server stopped answering (${reported}ping: ${describeRemoteError(failure)})`);
      },
    );
  }

  private async listTools(session: Session): Promise<void> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < TOOLS_LIST_MAX_PAGES; page++) {
      const result = await session.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, toolsPage, {
        timeout: this.forwardTimeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    if (this.session !== session) return;
    this.tools = tools;
    if (session.ready) this.changed();
  }

  private closeSession(): void {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    clearInterval(session.pinger);
    void session.client.close().catch(() => undefined);
  }

  private notReadyError(): JsonRpcError {
    const { state, restartAt, lastExit, lastError } = this.status;
    const exit = lastExit && (lastExit.signal ? `killed by ${lastExit.signal}` : `exited with ${lastExit.code}`);
    const why = [exit, lastError].filter(Boolean).join('; ');
    const retryAfterMs = state === 'restarting' && restartAt !== undefined ? Math.max(0, restartAt - Date.now()) : undefined;
    const retryable = state === 'starting' || state === 'restarting';
    return {
      code: state === 'restarting' ? MGP_ERROR_CODES.serverRestarting : MGP_ERROR_CODES.serverNotReady,
      message: `the MCP server is ${state}${why ? ` (${why})` : ''}`,
      data: { _mgp: { category: 'lifecycle', retryable, ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }) } },
    };
  }

  /**
   * The server's JSON-RPC error as it sent it (MGP's `data._mgp` recovery hints included), or what the session
   * reports: a timeout, the connection closing under a call, a remote server that could not be reached.
   */
  private toJsonRpcError(error: unknown): JsonRpcError {
    if (error instanceof SdkMcpError) {
      const message = error.message.replace(/^MCP error -?\d+: /, '');
      return { code: error.code, message: this.redact(message), ...(error.data !== undefined && { data: error.data }) };
    }
    return { code: JSONRPC_ERROR_CODES.internalError, message: this.redact(describeRemoteError(error)) };
  }

  /**
   * Resolves once the server is past `starting` (ready, or down), at most `initializeTimeoutMs` later: a call that
   * arrives while the server initialises waits for it rather than failing, but never longer than initialising may take.
   */
  private settled(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.settledWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.initializeTimeoutMs);
      this.settledWaiters.add(done);
    });
  }

  private changed(): void {
    const status = this.status;
    if (status.state !== 'starting') for (const done of [...this.settledWaiters]) done();
    this.options.onChange?.(status);
  }
}

/** Whether a failed request was answered by the server (a JSON-RPC error it sent), not lost on the way or timed out. */
function answeredByServer(error: unknown): boolean {
  return error instanceof SdkMcpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed;
}

/**
 * A tool as the space sees it: the server's own MGP `security` when it declares one, else the risk its MCP
 * annotations map to (`toolRisk`, the one reading every participant makes), else as the server listed it (undeclared).
 */
function withSecurity(tool: ListedTool): ListedTool {
  const risk = toolRisk(tool);
  if (!risk || risk.source === 'security') return tool;
  const { source: _source, ...security } = risk;
  return { ...tool, security };
}

/** The MGP extensions both sides speak, from the raw `initialize` result; undefined for a plain MCP server. */
function negotiatedMgp(result: Record<string, unknown> | undefined): string[] | undefined {
  const mgp = z.looseObject({ capabilities: z.looseObject({ mgp: z.looseObject({ extensions: z.array(z.string()) }) }) }).safeParse(result);
  if (!mgp.success) return undefined;
  const offered = new Set<string>(MGP_EXTENSIONS);
  return mgp.data.capabilities.mgp.extensions.filter((extension) => offered.has(extension));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
