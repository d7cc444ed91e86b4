import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's `Transport` over a supervised child's stdio: newline-delimited JSON-RPC (MCP's stdio transport),
 * written with `writeLine` and read line by line from the supervisor's output. One instance per child: a restarted
 * server gets a new transport and a new client session.
 */
export class ChildLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private open = true;

  constructor(
    private readonly writeLine: (line: string) => boolean,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.open || !this.writeLine(JSON.stringify(message))) throw new Error('the MCP server is not running');
  }

  async close(): Promise<void> {
    this.closed();
  }

  /** One line of the child's stdout. Anything that is not a JSON-RPC message is logged, never fatal. */
  receive(line: string): void {
    if (!this.open || line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      return this.log(`stdout (not JSON-RPC): ${line.slice(0, 200)}`);
    }
    this.onmessage?.(message);
  }

  /** The child is gone: the client session fails its pending requests at once instead of waiting them out. */
  closed(): void {
    if (!this.open) return;
    this.open = false;
    this.onclose?.();
  }
}
