import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthRecords, OAuthRow } from './oauth-records';

/**
 * What one run of the SDK's `auth()` is for, which decides what the provider shows it and keeps of what it is told:
 * - `authorize` (an operator's Connect): no registration and no tokens are shown, so a fresh authorization starts
 *   (discovery, dynamic registration, PKCE); its registration, verifier and state are kept as pending. Registering
 *   anew on each Connect means a registration the authorization server forgot, or whose secret expired, or that was
 *   made for another redirect URI, never strands the operator on its error page; the connected registration is kept
 *   for refreshes until the new one's tokens arrive;
 * - `exchange` (the callback): the pending registration and verifier are shown, and the tokens it gets are kept as
 *   connected, with that registration;
 * - `refresh` (a bridge's token expired or was refused): the connected registration and tokens are shown, so `auth()`
 *   refreshes them; an authorization it would start instead is only noted (`authorizationUrl`), nobody is sent anywhere.
 */
export type OAuthRunMode =
  | { kind: 'authorize'; state: string; stateHash: string; by: string; expiresAt: Date }
  | { kind: 'exchange'; verifier: string; by: string; client: OAuthClientInformationMixed }
  | { kind: 'refresh' };

/**
 * The SDK's `OAuthClientProvider` over one remote bridge's row of the host's database: the server is the OAuth client
 * of the remote MCP server, one registration per launched participant, its tokens and PKCE verifier kept in the
 * database and never handed out whole (the bridge gets an access token, nothing else). One instance per `auth()` run.
 */
export class StoredOAuthClient implements OAuthClientProvider {
  /** The authorization page `auth()` asked to send the user to (`authorize`), or noted it would have (`refresh`). */
  authorizationUrl?: URL;
  /** The registration an `authorize` run made, kept as pending with its verifier. */
  private registered?: OAuthClientInformationMixed;

  constructor(
    private readonly records: OAuthRecords,
    private readonly participant: string,
    private readonly serverUrl: string,
    private readonly callbackUrl: string,
    private readonly clientName: string,
    private readonly mode: OAuthRunMode,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  state(): string {
    return this.mode.kind === 'authorize' ? this.mode.state : randomBytes(32).toString('base64url');
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.mode.kind === 'authorize') return this.registered;
    if (this.mode.kind === 'exchange') return this.mode.client;
    return parsed<OAuthClientInformationMixed>(this.row()?.client_information);
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    if (this.mode.kind === 'authorize') this.registered = information;
    else if (this.mode.kind === 'exchange') this.mode.client = information;
    else this.update({ client_information: JSON.stringify(information) });
  }

  tokens(): OAuthTokens | undefined {
    return this.mode.kind === 'refresh' ? parsed<OAuthTokens>(this.row()?.tokens) : undefined;
  }

  saveTokens(tokens: OAuthTokens, now = new Date()): void {
    const expiresAt = tokens.expires_in !== undefined ? new Date(now.getTime() + tokens.expires_in * 1000).toISOString() : null;
    const kept = parsed<OAuthTokens>(this.row()?.tokens);
    // A refresh that returns no new refresh token keeps the one it used (the SDK does too; this is for other servers).
    const refresh_token = tokens.refresh_token ?? (this.mode.kind === 'refresh' ? kept?.refresh_token : undefined);
    const saved = { ...tokens, ...(refresh_token !== undefined && { refresh_token }) };
    this.update({
      tokens: JSON.stringify(saved),
      expires_at: expiresAt,
      needed_at: null,
      last_error: null,
      ...(this.mode.kind === 'exchange' && {
        client_information: JSON.stringify(this.mode.client),
        connected_by: this.mode.by,
        connected_at: now.toISOString(),
      }),
    });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.mode.kind !== 'authorize') return; // a refresh that fell through to a new authorization starts none
    this.update({
      pending_state: this.mode.stateHash,
      pending_client: this.registered ? JSON.stringify(this.registered) : null,
      pending_verifier: codeVerifier,
      pending_by: this.mode.by,
      pending_expires_at: this.mode.expiresAt.toISOString(),
    });
  }

  codeVerifier(): string {
    if (this.mode.kind !== 'exchange') throw new Error('no authorization is under way');
    return this.mode.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return parsed<OAuthDiscoveryState>(this.row()?.discovery);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.update({ discovery: JSON.stringify(state) });
  }

  /** The server said what was kept no longer holds (an unknown client, a refresh token it refused): forgotten. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (this.mode.kind !== 'refresh') return; // an authorization's own registration is new; its answer says what failed
    const all = scope === 'all';
    this.update({
      ...((all || scope === 'client') && { client_information: null }),
      ...((all || scope === 'tokens') && { tokens: null, expires_at: null }),
      ...((all || scope === 'discovery') && { discovery: null }),
    });
  }

  private row(): OAuthRow | undefined {
    const row = this.records.get(this.participant);
    return row?.server_url === this.serverUrl ? row : undefined;
  }

  private update(changes: Parameters<OAuthRecords['update']>[2]): void {
    this.records.update(this.participant, this.serverUrl, changes);
  }
}

function parsed<T>(text: string | null | undefined): T | undefined {
  return text ? (JSON.parse(text) as T) : undefined;
}
