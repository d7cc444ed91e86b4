import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import type { RestartBackoff } from '../launcher/supervised-process';
import { McpServerConnection, type McpServerSpec, type McpServerStatus } from './mcp-server-connection';

export interface McpBridgeOptions extends Omit<MEWParticipantOptions, 'hooks' | 'autoDiscovery'> {
  /** The MCP server to start and serve to the space. */
  server: McpServerSpec;
  /** The server's stderr and the bridge's notes. @default console.error */
  log?: (line: string) => void;
  /** Restart backoff of the server. */
  backoff?: Partial<RestartBackoff>;
  initializeTimeoutMs?: number;
  forwardTimeoutMs?: number;
}

/**
 * Puts an MCP server that speaks stdio into a space: one participant whose `tools/list`, `tools/call`,
 * `resources/*`, `prompts/*` are the server's (through the official MCP SDK client), with MGP risk on every tool.
 * It tells the space when the tools change, reports the server's state in `participant/status` (`status` in words,
 * `mcp_server` in fields), and restarts the server on `participant/restart`.
 *
 * @example
 * const bridge = new McpBridge({ gateway, space: 'demo', token, server: filesystemServer('./sandbox') });
 * await bridge.connect();
 */
export class McpBridge {
  readonly participant: MEWParticipant;
  readonly upstream: McpServerConnection;
  private readonly log: (line: string) => void;

  constructor(options: McpBridgeOptions) {
    const { server, log = console.error, backoff, initializeTimeoutMs, forwardTimeoutMs, ...participant } = options;
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
      onChange: (status) => this.report(status),
      onToolsChanged: () => this.participant.tools.announceToolsChanged(),
    });
    this.participant.tools.forward((method, params) => this.upstream.request(method, params));
    this.participant.client.on('welcome', () => this.report(this.upstream.status));
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
        restarts: status.restarts,
        tools: status.tools,
        ...(status.server && { name: status.server.name, version: status.server.version }),
        ...(status.lastExit && { last_exit: { code: status.lastExit.code, signal: status.lastExit.signal } }),
        ...(status.restartAt !== undefined && { restart_at: new Date(status.restartAt).toISOString() }),
        ...(status.mgpExtensions && { mgp_extensions: status.mgpExtensions }),
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
  const exit = status.lastExit && (status.lastExit.signal ? `killed by ${status.lastExit.signal}` : `exited with ${status.lastExit.code}`);
  switch (status.state) {
    case 'ready':
      return `ready: ${status.tools} tools from ${status.server?.name ?? 'the MCP server'}`;
    case 'starting':
      return status.lastError ? `MCP server starting (${status.lastError})` : 'MCP server starting';
    case 'restarting': {
      const seconds = status.restartAt === undefined ? 0 : Math.max(0, Math.ceil((status.restartAt - Date.now()) / 1000));
      return `MCP server ${exit ?? 'down'}: restarting in ${seconds} s`;
    }
    case 'crashed':
      return `MCP server down (${status.lastError ?? exit ?? 'crashed'}): restart me to try again`;
    case 'exited':
      return `MCP server ${exit ?? 'exited'}`;
    case 'stopped':
      return 'MCP server stopped';
  }
}
