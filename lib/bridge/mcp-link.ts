import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProcessStatus } from '../launcher/supervised-process';
import type { RemoteTransportName } from './bridge-defaults';

/** The transport a link carries sessions over. */
export type McpTransportName = 'stdio' | RemoteTransportName;

/**
 * What an operator sees of a link: a supervised process's status (`starting` while a session is being opened,
 * `running` while one is up, `restarting` while waiting out the backoff, `crashed` when it gave up), plus why the last
 * session failed and the transport in use.
 */
export interface LinkStatus extends ProcessStatus {
  /** Why the last session ended or could not be opened (`initialize failed: …`). */
  lastError?: string;
  /** The transport of the current (or last) session; for a remote server, known once one was opened. */
  transport?: McpTransportName;
  /** A remote server's URL as it may be shown (`displayUrl`: no credentials, no query). */
  url?: string;
}

/** What a link asks of the connection it carries sessions for. */
export interface LinkHandlers {
  /**
   * Initialises a session over a new transport (MCP `initialize`, then the tools), resolving once it is ready;
   * rejects when it cannot, and the link then tries again by its backoff.
   */
  open(transport: Transport): Promise<void>;
  /** The session's transport is gone (the process exited, the link gave up on it): forget the session. */
  closed(): void;
  /** Told on every change of `status`. */
  changed(): void;
  log(line: string): void;
}

/**
 * What carries MCP sessions to one server and brings them back when the server goes away, with the project's
 * restart backoff (`RestartBackoff`): a supervised child over stdio (`StdioLink`), or HTTP to a remote URL
 * (`RemoteLink`). The connection above it (`McpServerConnection`) is the same for both: one SDK `Client` per
 * session, the tools, MGP, the forwarding.
 */
export interface McpLink {
  readonly status: LinkStatus;
  /**
   * The session cannot be used (it stopped answering): end it, and let the backoff bring a new one. The reason is
   * kept as `lastError`.
   */
  fail(reason: string): void;
  /** A fresh start now, the backoff reset (after a crash, or on `participant/restart`). */
  restart(): Promise<void>;
  /** Ends the session and stays down. */
  stop(): Promise<void>;
}
