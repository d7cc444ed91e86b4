import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError as SdkMcpError, ToolListChangedNotificationSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toolRisk } from '../protocol';
import type { JsonRpcError, McpAnswer } from '../sdk/local-mcp-server';
import { JSONRPC_ERROR_CODES } from '../sdk/local-mcp-server';
import { SupervisedProcess, type ProcessStatus, type RestartBackoff } from '../launcher/supervised-process';
import { FORWARD_TIMEOUT_MS, INITIALIZE_TIMEOUT_MS, MGP_ERROR_CODES, MGP_EXTENSIONS, MGP_VERSION, TOOLS_LIST_MAX_PAGES } from './bridge-defaults';
import { ChildLineTransport } from './child-line-transport';

/** How to start an MCP server that speaks stdio. */
export interface McpServerSpec {
  command: string;
  args: readonly string[];
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** @default the current directory */
  cwd?: string;
}

/** `ready`: initialised, tools listed; `starting`: its process is up, `initialize` not yet answered; else the process's state. */
export type McpServerState = 'starting' | 'ready' | Exclude<ProcessStatus['state'], 'starting' | 'running'>;

/** What an operator (and the bridge's `participant/status`) sees of the server. */
export interface McpServerStatus extends Omit<ProcessStatus, 'state'> {
  state: McpServerState;
  /** `serverInfo` of its `initialize` answer. */
  server?: { name: string; version?: string };
  tools: number;
  /** MGP extensions both sides speak, when the server answered with `capabilities.mgp` (mgp-0.5.2 §2.4). */
  mgpExtensions?: string[];
  /** Why it is not ready, when something went wrong (`initialize` failed, tools could not be listed). */
  lastError?: string;
}

export interface McpServerConnectionOptions {
  server: McpServerSpec;
  /** The server's stderr, stray stdout, and the connection's own notes. */
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
  transport: ChildLineTransport;
  ready: boolean;
}

/**
 * One MCP server over stdio, as the bridge uses it: started and restarted with backoff by a `SupervisedProcess`,
 * one official SDK `Client` session per process (initialised with MGP's `security` offer), its tools listed (every
 * page) and kept current on `notifications/tools/list_changed`, and requests forwarded. A request never hangs: while
 * the server is down it is answered at once with MGP's `SERVER_NOT_READY`/`SERVER_RESTARTING`, and a server that
 * dies mid-call fails the call.
 *
 * @example
 * const fs = new McpServerConnection({ server: { command: 'mcp-server-filesystem', args: ['./sandbox'] }, log: console.error });
 * await fs.request('tools/call', { name: 'list_directory', arguments: { path: '.' } });
 */
export class McpServerConnection {
  private readonly process: SupervisedProcess;
  private session?: Session;
  private tools: ListedTool[] = [];
  private server?: McpServerStatus['server'];
  private mgpExtensions?: string[];
  private lastError?: string;
  private readonly settledWaiters = new Set<() => void>();
  private readonly initializeTimeoutMs: number;
  private readonly forwardTimeoutMs: number;

  constructor(private readonly options: McpServerConnectionOptions) {
    this.initializeTimeoutMs = options.initializeTimeoutMs ?? INITIALIZE_TIMEOUT_MS;
    this.forwardTimeoutMs = options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;
    const { command, args, env = {}, cwd = process.cwd() } = options.server;
    this.process = new SupervisedProcess({
      name: command,
      command,
      args,
      cwd,
      env: { ...process.env, ...env },
      // A stdio server that ended, even cleanly, is a server the space no longer has.
      restart: 'always',
      stdin: true,
      backoff: options.backoff,
      output: (line, stream) => (stream === 'stdout' ? this.session?.transport.receive(line) : options.log(line)),
      // Both deferred: the first spawn happens inside SupervisedProcess's constructor, before `this.process` is set.
      onSpawn: () => queueMicrotask(() => this.open()),
      onChange: () =>
        queueMicrotask(() => {
          if (!['starting', 'running'].includes(this.process.status.state)) this.closeSession();
          this.changed();
        }),
    });
  }

  get status(): McpServerStatus {
    const { state, ...process } = this.process.status;
    const up = state === 'starting' || state === 'running';
    return {
      ...process,
      state: up ? (this.session?.ready ? 'ready' : 'starting') : state,
      ...(this.server && { server: this.server }),
      tools: this.tools.length,
      ...(this.mgpExtensions && { mgpExtensions: this.mgpExtensions }),
      ...(this.lastError !== undefined && { lastError: this.lastError }),
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
      return { error: toJsonRpcError(error) };
    }
  }

  /** Starts the server again now (after a crash, or to pick up a new binary); a running one is restarted. */
  async restart(): Promise<void> {
    await this.process.stop();
    this.process.start();
  }

  /** Stops the server (SIGTERM, then SIGKILL) and keeps it down. */
  async stop(): Promise<void> {
    await this.process.stop();
    this.closeSession();
  }

  private open(): void {
    this.closeSession();
    const transport = new ChildLineTransport((line) => this.process.writeLine(line), this.options.log);
    // MGP rides on `initialize` as `capabilities.mgp` (mgp-0.5.2 §2.2); MCP servers that do not know it ignore it.
    const capabilities = { mgp: { version: MGP_VERSION, extensions: [...MGP_EXTENSIONS] } } as ClientCapabilities;
    const client = new Client({ name: 'mew-bridge', version: MGP_VERSION }, { capabilities });
    const session: Session = { client, transport, ready: false };
    this.session = session;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.listTools(session).then(
        () => this.options.onToolsChanged?.(),
        (error) => this.options.log(`listing tools after list_changed failed: ${messageOf(error)}`),
      );
    });
    void this.initialize(session);
  }

  private async initialize(session: Session): Promise<void> {
    try {
      await session.client.connect(session.transport, { timeout: this.initializeTimeoutMs });
      const info = session.client.getServerVersion();
      this.server = info && { name: info.name, ...(info.version && { version: info.version }) };
      this.mgpExtensions = negotiatedMgp(session.transport.initializeResult);
      await this.listTools(session);
      if (this.session !== session) return;
      session.ready = true;
      this.lastError = undefined;
      this.options.log(`ready: ${this.server?.name ?? 'MCP server'} with ${this.tools.length} tools`);
      this.changed();
      this.options.onToolsChanged?.();
    } catch (error) {
      if (this.session !== session) return;
      this.lastError = `initialize failed: ${messageOf(error)}`;
      this.options.log(this.lastError);
      // A server that will not initialise is as good as crashed: its exit puts it under the restart backoff.
      this.process.kill('SIGKILL');
    }
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
    session.transport.closed();
  }

  private notReadyError(): JsonRpcError {
    const { state, restartAt, lastExit } = this.status;
    const exit = lastExit && (lastExit.signal ? `killed by ${lastExit.signal}` : `exited with ${lastExit.code}`);
    const why = [exit, this.lastError].filter(Boolean).join('; ');
    const retryAfterMs = state === 'restarting' && restartAt !== undefined ? Math.max(0, restartAt - Date.now()) : undefined;
    const retryable = state === 'starting' || state === 'restarting';
    return {
      code: state === 'restarting' ? MGP_ERROR_CODES.serverRestarting : MGP_ERROR_CODES.serverNotReady,
      message: `the MCP server is ${state}${why ? ` (${why})` : ''}`,
      data: { _mgp: { category: 'lifecycle', retryable, ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }) } },
    };
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

/**
 * The server's JSON-RPC error as it sent it (MGP's `data._mgp` recovery hints included), or what the session
 * reports: a timeout, or the connection closing under a call.
 */
function toJsonRpcError(error: unknown): JsonRpcError {
  if (error instanceof SdkMcpError) {
    const message = error.message.replace(/^MCP error -?\d+: /, '');
    return { code: error.code, message, ...(error.data !== undefined && { data: error.data }) };
  }
  return { code: JSONRPC_ERROR_CODES.internalError, message: messageOf(error) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
