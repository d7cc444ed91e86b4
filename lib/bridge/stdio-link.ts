import { SupervisedProcess, type RestartBackoff } from '../launcher/supervised-process';
import { ChildLineTransport } from './child-line-transport';
import type { LinkHandlers, LinkStatus, McpLink } from './mcp-link';
import type { StdioServerSpec } from './mcp-server-spec';

/**
 * An MCP server over stdio: a child started and restarted with backoff by a `SupervisedProcess` (restart `always`:
 * a stdio server that ended, even cleanly, is a server the space no longer has), one session per child. A child
 * that does not initialise, or whose session stopped answering, is killed, and its exit is what the backoff acts on.
 */
export class StdioLink implements McpLink {
  private readonly process: SupervisedProcess;
  private transport?: ChildLineTransport;
  private lastError?: string;

  constructor(
    spec: StdioServerSpec,
    backoff: Partial<RestartBackoff> | undefined,
    private readonly handlers: LinkHandlers,
  ) {
    const { command, args, env = {}, cwd = process.cwd() } = spec;
    this.process = new SupervisedProcess({
      name: command,
      command,
      args,
      cwd,
      env: { ...process.env, ...env },
      restart: 'always',
      stdin: true,
      backoff,
      output: (line, stream) => (stream === 'stdout' ? this.transport?.receive(line) : handlers.log(line)),
      // Both deferred: the first spawn happens inside SupervisedProcess's constructor, before `this.process` is set.
      onSpawn: () => queueMicrotask(() => this.open()),
      onChange: () =>
        queueMicrotask(() => {
          if (!['starting', 'running'].includes(this.process.status.state)) this.close();
          handlers.changed();
        }),
    });
  }

  get status(): LinkStatus {
    return { ...this.process.status, ...(this.lastError !== undefined && { lastError: this.lastError }), transport: 'stdio' };
  }

  fail(reason: string): void {
    this.lastError = reason;
    this.handlers.log(reason);
    // A server that will not initialise or answer is as good as crashed: its exit puts it under the restart backoff.
    this.process.kill('SIGKILL');
  }

  async restart(): Promise<void> {
    await this.process.stop();
    this.process.start();
  }

  async stop(): Promise<void> {
    await this.process.stop();
    this.close();
  }

  private open(): void {
    this.close();
    const transport = new ChildLineTransport((line) => this.process.writeLine(line), this.handlers.log);
    this.transport = transport;
    this.handlers.open(transport).then(
      () => {
        if (this.transport === transport) this.lastError = undefined;
      },
      (error: unknown) => {
        if (this.transport === transport) this.fail(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** The child is gone: its session's pending requests fail at once instead of waiting out their timeouts. */
  private close(): void {
    const transport = this.transport;
    if (!transport) return;
    this.transport = undefined;
    this.handlers.closed();
    transport.closed();
  }
}
