/**
 * Test fixture: an OAuth-protected MCP server built on the SDK's server auth, as a hosted one would be. One process
 * (one port) is both the authorization server (`mcpAuthRouter`: metadata, dynamic client registration, authorize,
 * token, revocation) and the resource server (`requireBearerAuth` in front of a Streamable HTTP MCP server with two
 * tools), with an in-memory `OAuthServerProvider` that approves every authorization at once (no login page), issues
 * refresh tokens and rotates them. Nothing in the product imports it.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';

/** The scope the server's tools need, and the only one it offers. */
export const OAUTH_TEST_SCOPE = 'mcp:tools';

interface Issued {
  clientId: string;
  scopes: string[];
  resource?: URL;
  /** Epoch ms (access tokens only). */
  expiresAt?: number;
}

/** How many times each step ran, for tests to check what the client did. */
export interface OAuthServerCounts {
  registrations: number;
  authorizations: number;
  exchanges: number;
  refreshes: number;
  revocations: number;
}

/** An in-memory authorization server that approves every authorization at once; `deny` makes the next ones refused. */
export class AutoApprovingOAuthProvider implements OAuthServerProvider {
  readonly counts: OAuthServerCounts = { registrations: 0, authorizations: 0, exchanges: 0, refreshes: 0, revocations: 0 };
  /** Answer authorizations with `error=access_denied` (a user who said no). */
  deny = false;
  readonly accessTokens = new Map<string, Issued>();
  readonly refreshTokens = new Map<string, Issued>();
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();

  constructor(private readonly accessTokenTtlSeconds: number) {}

  readonly clientsStore = {
    getClient: (clientId: string) => this.clients.get(clientId),
    registerClient: (client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) => {
      this.counts.registrations++;
      const registered = client as OAuthClientInformationFull;
      this.clients.set(registered.client_id, registered);
      return registered;
    },
  };

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: ServerResponse): Promise<void> {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError('unregistered redirect_uri');
    this.counts.authorizations++;
    const target = new URL(params.redirectUri);
    if (this.deny) {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'the user said no');
    } else {
      const code = randomUUID();
      this.codes.set(code, { client, params });
      target.searchParams.set('code', code);
    }
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.writeHead(302, { Location: target.href }).end();
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const issued = this.codes.get(code);
    if (!issued) throw new InvalidGrantError('unknown authorization code');
    return issued.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const issued = this.codes.get(code);
    if (!issued || issued.client.client_id !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.counts.exchanges++;
    return this.issue(client.client_id, issued.params.scopes?.length ? issued.params.scopes : [OAUTH_TEST_SCOPE], issued.params.resource);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const issued = this.refreshTokens.get(refreshToken);
    if (!issued || issued.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refreshTokens.delete(refreshToken); // rotated: each refresh token works once
    this.counts.refreshes++;
    return this.issue(client.client_id, issued.scopes, resource ?? issued.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const issued = this.accessTokens.get(token);
    if (!issued || (issued.expiresAt ?? 0) <= Date.now()) throw new InvalidTokenError('unknown or expired access token');
    return {
      token,
      clientId: issued.clientId,
      scopes: issued.scopes,
      expiresAt: Math.floor(issued.expiresAt! / 1000),
      ...(issued.resource && { resource: issued.resource }),
    };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    this.counts.revocations++;
    this.accessTokens.delete(request.token);
    this.refreshTokens.delete(request.token);
  }

  /** Every access token issued so far stops working (as if they expired early, or the server forgot them). */
  expireAccessTokens(): void {
    for (const issued of this.accessTokens.values()) issued.expiresAt = Date.now() - 1;
  }

  private issue(clientId: string, scopes: string[], resource?: URL): OAuthTokens {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    this.accessTokens.set(accessToken, { clientId, scopes, resource, expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000 });
    this.refreshTokens.set(refreshToken, { clientId, scopes, resource });
    return { access_token: accessToken, token_type: 'bearer', expires_in: this.accessTokenTtlSeconds, refresh_token: refreshToken, scope: scopes.join(' ') };
  }
}

export interface OAuthMcpServerOptions {
  /** @default 0 (the kernel picks) */
  port?: number;
  /** @default 3600 */
  accessTokenTtlSeconds?: number;
}

/**
 * The OAuth-protected MCP server on 127.0.0.1: its MCP endpoint is `/mcp` (Streamable HTTP, stateless), its tools
 * `echo` and `whoami` (read-only), and its protected resource metadata at `/.well-known/oauth-protected-resource/mcp`.
 *
 * @example
 * const server = await OAuthMcpServer.start();
 * // bridge: {url: server.url}; an operator's Connect is approved at once
 */
export class OAuthMcpServer {
  private constructor(
    private readonly server: Server,
    readonly provider: AutoApprovingOAuthProvider,
    readonly port: number,
  ) {}

  static async start(options: OAuthMcpServerOptions = {}): Promise<OAuthMcpServer> {
    let app: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const server = createServer((req, res) => app!(req, res));
    server.listen(options.port ?? 0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const provider = new AutoApprovingOAuthProvider(options.accessTokenTtlSeconds ?? 3600);
    app = oauthMcpApp(provider, port);
    return new OAuthMcpServer(server, provider, port);
  }

  /** The MCP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function oauthMcpApp(provider: AutoApprovingOAuthProvider, port: number) {
  const origin = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL('/mcp', origin);
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const noRateLimit = { rateLimit: false } as const;
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: [OAUTH_TEST_SCOPE],
      resourceName: 'OAuth test MCP server',
      authorizationOptions: noRateLimit,
      tokenOptions: noRateLimit,
      clientRegistrationOptions: noRateLimit,
      revocationOptions: noRateLimit,
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: [OAUTH_TEST_SCOPE],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
  app.post('/mcp', bearer, async (req: IncomingMessage & { body?: unknown; auth?: AuthInfo }, res: ServerResponse) => {
    const mcp = mcpServer(req.auth!);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no stream to open, no session to end.
  for (const method of ['get', 'delete'] as const) {
    app[method]('/mcp', bearer, (_req: IncomingMessage, res: ServerResponse) => res.writeHead(405, { Allow: 'POST' }).end());
  }
  return app as (req: IncomingMessage, res: ServerResponse) => void;
}

function mcpServer(caller: AuthInfo): McpServer {
  const server = new McpServer({ name: 'oauth-test-server', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes a message back', inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } },
    ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  server.registerTool('whoami', { description: 'Says which OAuth client is calling, with which scopes', annotations: { readOnlyHint: true } }, () => ({
    content: [{ type: 'text', text: `client ${caller.clientId} with ${caller.scopes.join(' ')}` }],
  }));
  return server;
}
