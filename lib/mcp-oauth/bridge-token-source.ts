import { createHash } from 'node:crypto';
import type { BearerTokenSource } from '../bridge/remote-transport';
import type { McpOAuthTokenAnswer } from '../protocol';
import { TOKEN_RENEW_MARGIN_MS } from './mcp-oauth-defaults';

/** How long the bridge waits for the server's answer about its token. */
const ASK_TIMEOUT_MS = 15_000;

/** Tokens it handed out that `redact` still takes out of texts (the newest; older ones expired long ago). */
const TOKENS_REMEMBERED = 8;

export interface ServerTokenSourceOptions {
  /** The gateway's WebSocket URL the bridge joins through (`ws://host:port/ws`): the server's HTTP API is beside it. */
  gateway: string;
  space: string;
  /** The bridge participant's own token: the server hands each bridge its own access token only. */
  token: string;
  fetch?: typeof fetch;
}

/**
 * A bridge's OAuth access token, from the space's server (`POST /api/spaces/{space}/oauth/token`, authenticated by the
 * bridge's own participant token). It asks only once the MCP server has answered 401 with a Bearer challenge (a server
 * that needs no OAuth never costs a request), keeps the token until shortly before it expires, and tells the server
 * when the MCP server refused one (by its SHA-256, never the token), so the server refreshes it.
 */
export class ServerTokenSource implements BearerTokenSource {
  shortfall?: { required: boolean; reason: string };
  private cached?: { token: string; expiresAt?: number };
  /** The MCP server asked for a token once: from then on one is asked for before each request that has none. */
  private wanted = false;
  private asking?: Promise<string | undefined>;
  private readonly handedOut: string[] = [];
  private readonly endpoint: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ServerTokenSourceOptions) {
    this.endpoint = `${httpBaseOf(options.gateway)}/api/spaces/${encodeURIComponent(options.space)}/oauth/token`;
    this.fetch = options.fetch ?? fetch;
  }

  async token(): Promise<string | undefined> {
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || cached.expiresAt - TOKEN_RENEW_MARGIN_MS > Date.now())) return cached.token;
    return this.wanted ? this.ask() : undefined;
  }

  async refused(token: string | undefined): Promise<string | undefined> {
    this.wanted = true;
    // Another request already brought a newer one while this one was refused: that one is tried.
    if (this.cached && this.cached.token !== token) return this.cached.token;
    this.cached = undefined;
    return this.ask(token === undefined ? undefined : createHash('sha256').update(token).digest('hex'));
  }

  redact(text: string): string {
    return this.handedOut.reduce((redacted, token) => redacted.split(token).join('[redacted]'), text);
  }

  /** One question at a time: requests refused together share its answer. */
  private ask(refused?: string): Promise<string | undefined> {
    this.asking ??= this.askServer(refused).finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async askServer(refused: string | undefined): Promise<string | undefined> {
    let answer: McpOAuthTokenAnswer;
    try {
      const response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.options.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(refused === undefined ? {} : { refused }),
        signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
      });
      const body = (await response.json().catch(() => ({}))) as McpOAuthTokenAnswer & { message?: string };
      if (!response.ok) {
        // A server without OAuth for this bridge (one it does not launch): the 401 stays the MCP server's own.
        this.shortfall = undefined;
        return undefined;
      }
      answer = body;
    } catch (error) {
      this.shortfall = { required: false, reason: `the server could not be asked for an OAuth token (${(error as Error).message})` };
      return undefined;
    }
    if (answer.status === 'authorized') {
      this.shortfall = undefined;
      this.cached = { token: answer.access_token, ...(answer.expires_at !== undefined && { expiresAt: Date.parse(answer.expires_at) }) };
      this.handedOut.push(answer.access_token);
      if (this.handedOut.length > TOKENS_REMEMBERED) this.handedOut.shift();
      return answer.access_token;
    }
    this.shortfall = { required: answer.status === 'authorization_required', reason: answer.message };
    return undefined;
  }
}

/**
 * The server's HTTP base beside its gateway's WebSocket URL.
 *
 * @example
 * httpBaseOf('ws://127.0.0.1:3000/ws'); // 'http://127.0.0.1:3000'
 * httpBaseOf('wss://mew.example.com/team/ws?space=x'); // 'https://mew.example.com/team'
 */
export function httpBaseOf(gateway: string): string {
  const url = new URL(gateway);
  url.protocol = url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol;
  return `${url.origin}${url.pathname.replace(/\/ws\/?$/, '').replace(/\/+$/, '')}`;
}
