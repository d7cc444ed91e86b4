import { createHash, randomBytes } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { displayUrl } from '../bridge/mcp-server-spec';
import { GatewayError } from '../gateway/gateway-error';
import type { McpOAuthConnectAnswer, McpOAuthReport, McpOAuthTokenAnswer } from '../protocol';
import { AUTHORIZATION_TTL_MS, ERROR_TEXT_LIMIT, OAUTH_HTTP_TIMEOUT_MS, TOKEN_RENEW_MARGIN_MS } from './mcp-oauth-defaults';
import type { OAuthRecords, OAuthRow } from './oauth-records';
import { StoredOAuthClient, type OAuthRunMode } from './stored-oauth-client';

/** The SDK's OAuth client, loaded the first time an authorization or a refresh needs it (a space without remote bridges never does). */
const oauthClient = () => import('@modelcontextprotocol/sdk/client/auth.js');

/** A remote bridge the server launches (with no `Authorization` header of its own): the MCP server it reaches. */
export interface RemoteBridge {
  participant: string;
  /** Its URL as the bridge is given it (`${NAME}` filled). */
  serverUrl: string;
}

export interface McpOAuthConnectionsOptions {
  space: string;
  records: OAuthRecords;
  bridges: ReadonlyMap<string, RemoteBridge>;
  /** The redirect URI: this server's callback, at its public origin. */
  callbackUrl: string;
  /** Restarts a bridge's process so it connects again with what changed (a token, or none). */
  restartBridge(participant: string): Promise<void>;
  log(line: string): void;
  /** @default global fetch (with OAUTH_HTTP_TIMEOUT_MS) */
  fetch?: FetchLike;
  now?: () => number;
}

/**
 * The OAuth client side of a space's remote bridges, run by the server with the SDK's `auth()` over a stored
 * `OAuthClientProvider` (`StoredOAuthClient`): an operator's Connect (discovery, dynamic registration, authorization
 * code with PKCE, its `state` bound to the space, the bridge and the operator, single use, `AUTHORIZATION_TTL_MS`),
 * the callback's code exchange, each bridge's access token (refreshed when it nears expiry or the MCP server refused
 * it), and Disconnect (tokens forgotten, revoked at the authorization server when it offers revocation). After a
 * change the bridge's process is restarted, so it connects again with the token, or finds it has none.
 */
export class McpOAuthConnections {
  /** A refresh under way per bridge: bridges asking together share it (a refresh token may be used once). */
  private readonly refreshing = new Map<string, Promise<McpOAuthTokenAnswer>>();
  private readonly fetch: FetchLike;
  private readonly now: () => number;

  constructor(private readonly options: McpOAuthConnectionsOptions) {
    const base = options.fetch ?? fetch;
    this.fetch = (url, init) => base(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(OAUTH_HTTP_TIMEOUT_MS) });
    this.now = options.now ?? Date.now;
  }

  list(): McpOAuthReport[] {
    return [...this.options.bridges.keys()].map((participant) => this.report(participant));
  }

  report(participant: string): McpOAuthReport {
    const bridge = this.bridge(participant);
    const row = this.row(bridge);
    const tokens = parsed<OAuthTokens>(row?.tokens);
    const authorizing = row?.pending_state && row.pending_expires_at && Date.parse(row.pending_expires_at) > this.now();
    const state = tokens ? 'connected' : authorizing ? 'authorizing' : row?.needed_at ? 'authorization_required' : 'not_connected';
    return {
      participant,
      server: displayUrl(bridge.serverUrl),
      state,
      ...(tokens?.scope && { scopes: tokens.scope.split(' ').filter(Boolean) }),
      ...(tokens && row?.expires_at && { expires_at: row.expires_at }),
      ...(tokens && { refreshable: tokens.refresh_token !== undefined }),
      ...(tokens && row?.connected_at && { connected_at: row.connected_at }),
      ...(tokens && row?.connected_by && { connected_by: row.connected_by }),
      ...(authorizing && { authorization_expires_at: row.pending_expires_at! }),
      ...(row?.last_error && { last_error: row.last_error }),
    };
  }

  /**
   * Starts an authorization for `by` (an operator): the authorization server's page to send their browser to. A
   * connected bridge keeps its tokens until the new ones arrive.
   */
  async connect(participant: string, by: string): Promise<McpOAuthConnectAnswer> {
    const bridge = this.bridge(participant);
    const state = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now() + AUTHORIZATION_TTL_MS);
    const client = this.client(bridge, { kind: 'authorize', state, stateHash: hashOf(state), by, expiresAt });
    try {
      // The server's 401 may say where its resource metadata is and what scope it wants (MCP: clients MUST read it).
      const { auth } = await oauthClient();
      const challenge = await this.challenge(bridge.serverUrl);
      const result = await auth(client, { serverUrl: bridge.serverUrl, ...challenge, fetchFn: this.fetch });
      if (result !== 'REDIRECT' || !client.authorizationUrl) throw new Error('the authorization server asked for no authorization');
    } catch (error) {
      throw this.failed(bridge, 'could not start the authorization', error);
    }
    this.options.log(`${participant}: ${by} started an OAuth authorization with ${displayUrl(bridge.serverUrl)}`);
    return { authorization_url: client.authorizationUrl.href, expires_at: expiresAt.toISOString() };
  }

  /**
   * The authorization server sent the operator's browser back (`?code&state`, or `?error&state`): the code is
   * exchanged for tokens, kept, and the bridge restarted. A state that is unknown, used or expired is refused (400
   * `invalid_request`): each works once, for `AUTHORIZATION_TTL_MS`.
   */
  async callback(query: URLSearchParams): Promise<{ participant: string; server: string }> {
    const state = query.get('state');
    if (!state) throw new GatewayError('invalid_request', 'the authorization answer has no state');
    const row = this.options.records.byPendingState(hashOf(state));
    const bridge = row && this.options.bridges.get(row.participant);
    const registration = parsed<OAuthClientInformationMixed>(row?.pending_client);
    if (!row || !bridge || row.server_url !== bridge.serverUrl || !row.pending_verifier || !registration) {
      throw new GatewayError('invalid_request', 'unknown or already used authorization state: start again with Connect');
    }
    // Single use, whatever comes next.
    this.options.records.update(row.participant, row.server_url, PENDING_CLEARED);
    if (!row.pending_expires_at || Date.parse(row.pending_expires_at) <= this.now()) {
      throw new GatewayError('invalid_request', 'this authorization expired: start again with Connect');
    }
    const refusal = query.get('error');
    if (refusal) {
      const description = query.get('error_description');
      const message = `the authorization was not granted: ${refusal}${description ? ` (${description})` : ''}`.slice(0, ERROR_TEXT_LIMIT);
      this.options.records.update(row.participant, row.server_url, { last_error: message });
      throw new GatewayError('invalid_request', message);
    }
    const code = query.get('code');
    if (!code) throw new GatewayError('invalid_request', 'the authorization answer has no code');
    const client = this.client(bridge, { kind: 'exchange', verifier: row.pending_verifier, by: row.pending_by ?? 'admin', client: registration });
    try {
      const { auth } = await oauthClient();
      const result = await auth(client, { serverUrl: bridge.serverUrl, authorizationCode: code, fetchFn: this.fetch });
      if (result !== 'AUTHORIZED') throw new Error('the authorization server issued no token');
    } catch (error) {
      throw this.failed(bridge, 'could not exchange the authorization code', error);
    }
    this.options.log(`${row.participant}: authorized with ${displayUrl(bridge.serverUrl)} by ${row.pending_by ?? 'admin'}; restarting the bridge`);
    await this.restart(row.participant);
    return { participant: row.participant, server: displayUrl(bridge.serverUrl) };
  }

  /**
   * A bridge's own access token (`refused`: the SHA-256 of the one its MCP server refused): the stored one while it
   * holds, else refreshed first. None without an authorization, and the bridge's card then asks for one.
   */
  async token(participant: string, refused?: string): Promise<McpOAuthTokenAnswer> {
    const bridge = this.bridge(participant);
    const row = this.row(bridge);
    const tokens = parsed<OAuthTokens>(row?.tokens);
    if (!row || !tokens) return this.required(bridge, 'authorization required: an operator connects it with Connect on its card');
    const expired = row.expires_at !== null && Date.parse(row.expires_at) - TOKEN_RENEW_MARGIN_MS <= this.now();
    if (!expired && refused !== hashOf(tokens.access_token)) return authorized(tokens, row);
    let refreshing = this.refreshing.get(participant);
    if (!refreshing) {
      refreshing = this.refresh(bridge, tokens).finally(() => this.refreshing.delete(participant));
      this.refreshing.set(participant, refreshing);
    }
    return refreshing;
  }

  /** Forgets the bridge's tokens (revoking them where the authorization server offers it) and restarts the bridge. */
  async disconnect(participant: string, by: string): Promise<McpOAuthReport> {
    const bridge = this.bridge(participant);
    const row = this.row(bridge);
    const tokens = parsed<OAuthTokens>(row?.tokens);
    this.options.records.update(participant, bridge.serverUrl, {
      ...PENDING_CLEARED,
      tokens: null,
      expires_at: null,
      connected_by: null,
      connected_at: null,
      needed_at: null,
      last_error: null,
    });
    if (row && tokens) await this.revokeAtServer(bridge, row, tokens);
    this.options.log(`${participant}: ${by} disconnected it from ${displayUrl(bridge.serverUrl)}; restarting the bridge`);
    await this.restart(participant);
    return this.report(participant);
  }

  private async refresh(bridge: RemoteBridge, tokens: OAuthTokens): Promise<McpOAuthTokenAnswer> {
    if (!tokens.refresh_token) {
      this.options.records.update(bridge.participant, bridge.serverUrl, { tokens: null, expires_at: null });
      return this.required(bridge, 'authorization required: the access token expired and no refresh token came with it');
    }
    const client = this.client(bridge, { kind: 'refresh' });
    try {
      const { auth } = await oauthClient();
      const result = await auth(client, { serverUrl: bridge.serverUrl, fetchFn: this.fetch });
      const row = this.row(bridge);
      const fresh = parsed<OAuthTokens>(row?.tokens);
      if (result === 'AUTHORIZED' && row && fresh) return authorized(fresh, row);
    } catch (error) {
      const reason = `could not refresh the OAuth token: ${this.describe(bridge, error)}`;
      this.options.records.update(bridge.participant, bridge.serverUrl, { last_error: reason });
      return { status: 'unavailable', message: reason };
    }
    this.options.records.update(bridge.participant, bridge.serverUrl, { tokens: null, expires_at: null });
    return this.required(bridge, 'authorization required: the authorization server would not refresh the token');
  }

  private required(bridge: RemoteBridge, message: string): McpOAuthTokenAnswer {
    if (!this.row(bridge)?.needed_at) this.options.records.update(bridge.participant, bridge.serverUrl, { needed_at: new Date(this.now()).toISOString() });
    return { status: 'authorization_required', message };
  }

  /** What the server's 401 says about its authorization (resource metadata, scope), if it answers one. */
  private async challenge(serverUrl: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    const response = await this.fetch(serverUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    }).catch(() => undefined);
    await response?.body?.cancel().catch(() => undefined);
    if (response?.status !== 401) return {};
    const { extractWWWAuthenticateParams } = await oauthClient();
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl && { resourceMetadataUrl }), ...(scope && { scope }) };
  }

  /** RFC 7009 revocation of the refresh token and the access token, best effort: they are forgotten here anyway. */
  private async revokeAtServer(bridge: RemoteBridge, row: OAuthRow, tokens: OAuthTokens): Promise<void> {
    // RFC 8414 names it; OpenID discovery documents may not (the SDK's type for them does not).
    const metadata = parsed<OAuthDiscoveryState>(row.discovery)?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined;
    const endpoint = typeof metadata?.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
    const client = parsed<OAuthClientInformationMixed>(row.client_information);
    if (!endpoint || !client) return;
    for (const [token, hint] of [
      [tokens.refresh_token, 'refresh_token'],
      [tokens.access_token, 'access_token'],
    ] as const) {
      if (!token) continue;
      const body = new URLSearchParams({
        token,
        token_type_hint: hint,
        client_id: client.client_id,
        ...(client.client_secret && { client_secret: client.client_secret }),
      });
      const response = await this.fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body }).catch(
        (error: Error) => error,
      );
      if (response instanceof Error || !response.ok) {
        const why = response instanceof Error ? response.message : `HTTP ${response.status}`;
        this.options.log(`${bridge.participant}: revoking its ${hint} at ${displayUrl(endpoint)} failed (${why}); forgotten here all the same`);
      }
      if (!(response instanceof Error)) await response.body?.cancel().catch(() => undefined);
    }
  }

  private async restart(participant: string): Promise<void> {
    await this.options.restartBridge(participant).catch((error: Error) => this.options.log(`${participant}: could not restart the bridge: ${error.message}`));
  }

  /** Records why a step failed (its words, secrets taken out) and the error for the operator who asked. */
  private failed(bridge: RemoteBridge, what: string, error: unknown): GatewayError {
    const message = `${what} with ${displayUrl(bridge.serverUrl)}: ${this.describe(bridge, error)}`;
    this.options.records.update(bridge.participant, bridge.serverUrl, { last_error: message });
    this.options.log(`${bridge.participant}: ${message}`);
    return new GatewayError('oauth_failed', message);
  }

  /** An error's words, shortened, with every secret this bridge has here taken out (an echoing server, a long page). */
  private describe(bridge: RemoteBridge, error: unknown): string {
    let text = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_LIMIT);
    const row = this.options.records.get(bridge.participant);
    const tokens = parsed<OAuthTokens>(row?.tokens);
    const clients = [row?.client_information, row?.pending_client].map((text) => parsed<OAuthClientInformationMixed>(text));
    for (const secret of [tokens?.access_token, tokens?.refresh_token, ...clients.map((client) => client?.client_secret), row?.pending_verifier]) {
      if (secret) text = text.split(secret).join('[redacted]');
    }
    return text;
  }

  private client(bridge: RemoteBridge, mode: OAuthRunMode): StoredOAuthClient {
    const name = `MEW Dashboard (${this.options.space}/${bridge.participant})`;
    return new StoredOAuthClient(this.options.records, bridge.participant, bridge.serverUrl, this.options.callbackUrl, name, mode);
  }

  private bridge(participant: string): RemoteBridge {
    const bridge = this.options.bridges.get(participant);
    if (!bridge) {
      throw new GatewayError('unknown_participant', `"${participant}" is no remote MCP bridge the server launches in space "${this.options.space}"`);
    }
    return bridge;
  }

  /** The bridge's row, unless it was for another URL (then nothing it holds applies). */
  private row(bridge: RemoteBridge): OAuthRow | undefined {
    const row = this.options.records.get(bridge.participant);
    return row?.server_url === bridge.serverUrl ? row : undefined;
  }
}

/** No authorization under way. */
const PENDING_CLEARED = { pending_state: null, pending_client: null, pending_verifier: null, pending_by: null, pending_expires_at: null } as const;

function authorized(tokens: OAuthTokens, row: OAuthRow): McpOAuthTokenAnswer {
  return {
    status: 'authorized',
    access_token: tokens.access_token,
    token_type: 'Bearer',
    ...(row.expires_at && { expires_at: row.expires_at }),
  };
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parsed<T>(text: string | null | undefined): T | undefined {
  return text ? (JSON.parse(text) as T) : undefined;
}
