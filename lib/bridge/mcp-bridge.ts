import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import type { RestartBackoff } from '../launcher/supervised-process';
import { McpServerConnection, type McpServerSpec, type McpServerStatus } from './mcp-server-connection';

export interface McpBridgeOptions extends Omit<MEWParticipantOptions, 'hooks' | 'autoDiscovery'> {
  /** The MCP server to serve to the space: a command to start (stdio), or a URL to connect to. */
  server: McpServerSpec;
  /** The server's stderr and the bridge's notes. @default console.error */
  log?: (line: string) => void;
  /** Restart backoff of the server. */
  backoff?: Partial<RestartBackoff>;
  initializeTimeoutMs?: number;
  forwardTimeoutMs?: number;
  /** How often the server is pinged to find out it went away. @default REMOTE_PING_INTERVAL_MS for a remote server, never for stdio */
  pingIntervalMs?: number;
}

/**
 * Puts an MCP server into a space, one that speaks stdio or a remote one (Streamable HTTP or SSE): one participant
 * whose `tools/list`, `tools/call`, `resources/*`, `prompts/*` are the server's (through the official MCP SDK
 * client), with MGP risk on every tool. It tells the space when the tools change, reports the server's state in
 * `participant/status` (`status` in words, `mcp_server` in fields), and restarts the server (or reconnects to it) on
 * `participant/restart`.
 *
 * @example
 * const bridge = new McpBridge({ gateway, space: 'demo', token, server: filesystemServer('./sandbox') });
 * const remote = new McpBridge({ gateway, space: 'demo', token, server: { url: 'https://mcp.example.com/mcp' } });
 * await bridge.connect();
 */
export class McpBridge {
  readonly participant: MEWParticipant;
  readonly upstream: McpServerConnection;
  private readonly log: (line: string) => void;

  constructor(options: McpBridgeOptions) {
    const { server, log = console.error, backoff, initializeTimeoutMs, forwardTimeoutMs, pingIntervalMs, ...participant } = options;
    this.log = log;
    this.participant = new MEWParticipant({
      ...participant,
      // A tool server asks nobody for tools.
      autoDiscovery: false,
      hooks: { onRestart: () => this.upstream.restart() },
    });
    this.upstream = new McpServerConnection({
      server,
      log,
      backoff,
      initializeTimeoutMs,
      forwardTimeoutMs,
      pingIntervalMs,
      onChange: (status) => this.report(status),
      onToolsChanged: () => this.participant.tools.announceToolsChanged(),
    });
    this.participant.tools.forward((method, params) => this.upstream.request(method, params));
    // On every (re)connection, once ready: what changed while it was away was not reported.
    this.participant.client.on('status', ({ status }) => status === 'ready' && this.report(this.upstream.status));
  }

  connect(): Promise<void> {
    return this.participant.connect();
  }

  /** Leaves the space and stops the server. */
  async stop(): Promise<void> {
    this.participant.disconnect();
    await this.upstream.stop();
  }

  private report(status: McpServerStatus): void {
    if (this.participant.client.status !== 'ready') return; // a stale state queued for later would only mislead
    const payload = {
      ...this.participant.telemetry.statusPayload(describe(status)),
      mcp_server: {
        state: status.state,
        ...(status.transport && { transport: status.transport }),
        ...(status.url && { url: status.url }),
        restarts: status.restarts,
        tools: status.tools,
        ...(status.server && { name: status.server.name, version: status.server.version }),
        ...(status.lastExit && { last_exit: { code: status.lastExit.code, signal: status.lastExit.signal } }),
        ...(status.restartAt !== undefined && { restart_at: new Date(status.restartAt).toISOString() }),
        ...(status.mgpExtensions && { mgp_extensions: status.mgpExtensions }),
        ...(status.lastError && { last_error: status.lastError }),
      },
    };
    try {
      this.participant.client.send({ kind: 'participant/status', payload });
    } catch (error) {
      this.log(`status report failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The server's state in a few words, for a participant card. */
export function describe(status: McpServerStatus): string {
  if (status.url !== undefined) return describeRemote(status, status.url);
  const exit = status.lastExit && (status.lastExit.signal ? `killed by ${status.lastExit.signal}` : `exited with ${status.lastExit.code}`);
  switch (status.state) {
    case 'ready':
      return `ready: ${status.tools} tools from ${status.server?.name ?? 'the MCP server'}`;
    case 'starting':
      return status.lastError ? `MCP server starting (${status.lastError})` : 'MCP server starting';
    case 'restarting':
      return `MCP server ${exit ?? 'down'}: restarting in ${secondsUntil(status.restartAt)} s`;
    case 'crashed':
      return `MCP server down (${status.lastError ?? exit ?? 'crashed'}): restart me to try again`;
    case 'exited':
      return `MCP server ${exit ?? 'exited'}`;
    case 'stopped':
      return 'MCP server stopped';
  }
}

/** A remote server's state: it has no process, so what went wrong is its last error. */
function describeRemote(status: McpServerStatus, url: string): string {
  const why = status.lastError ? ` (${status.lastError})` : '';
  switch (status.state) {
    case 'ready':
      return `ready: ${status.tools} tools from ${status.server?.name ?? url}`;
    case 'starting':
      return `connecting to ${url}${why}`;
    case 'restarting':
      return `MCP server at ${url} down${why}: reconnecting in ${secondsUntil(status.restartAt)} s`;
    case 'crashed':
    case 'exited':
      return `MCP server at ${url} down${why}: restart me to try again`;
    case 'stopped':
      return `disconnected from ${url}`;
  }
}

function secondsUntil(at: number | undefined): number {
  return at === undefined ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
