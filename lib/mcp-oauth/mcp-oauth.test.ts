import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorizingFetch, type BearerTokenSource } from '../bridge/remote-transport';
import { startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';
import type { AnyEnvelope, McpOAuthConnectAnswer, McpOAuthList, McpOAuthReport, McpOAuthTokenAnswer } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';
import { httpBaseOf, ServerTokenSource } from './bridge-token-source';
import { OAuthMcpServer } from './testing/oauth-mcp-server';

// An OAuth-protected MCP server (the SDK's server auth) put into a space by a launched bridge: it answers 401 with
// its authorization metadata, an operator connects it (discovery, dynamic registration, PKCE), the server keeps and
// refreshes the tokens, and the bridge lists and calls its tools; Disconnect forgets them.

const SPACE = 'oauth';
const BRIDGE_CAPABILITIES = [
  { kind: 'mcp/response' },
  { kind: 'mcp/request', payload: { method: 'notifications/tools/list_changed' } },
  { kind: 'participant/status' },
];

type McpServerReport = { state?: string; last_error?: string };
const reportOf = (envelope: AnyEnvelope) => envelope.payload as { status: string; mcp_server?: McpServerReport };

describe('OAuth for a remote MCP server', () => {
  let dataDir: string;
  let server: OAuthMcpServer;
  let gw: TestGateway;
  let participants: ReturnType<typeof participantFactory>;
  let lead: MEWParticipant;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mew-mcp-oauth-'));
    server = await OAuthMcpServer.start();
    const config = {
      space: { id: SPACE },
      participants: {
        lead: { tokens: [tokenOf('lead')], capabilities: [{ kind: '*' }] },
        viewer: { tokens: [tokenOf('viewer')], capabilities: [{ kind: 'chat' }] },
        remote: { capabilities: BRIDGE_CAPABILITIES, bridge: { url: server.url } },
      },
    };
    gw = await startGatewayWith({ configs: [config], dataDir, launch: { dataDir } });
    participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
    lead = await participants.connect('lead');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = (path: string, who: string | null = 'lead', method = 'GET') =>
    fetch(gw.httpUrl(`/api/spaces/${SPACE}${path}`), { method, headers: who ? { Authorization: `Bearer ${tokenOf(who)}` } : {} });
  const report = async (): Promise<McpOAuthReport> => ((await (await api('/oauth')).json()) as McpOAuthList).connections[0];
  const echo = (message: string) =>
    lead.mcpRequest('remote', { method: 'tools/call', params: { name: 'echo', arguments: { message } } }, 10_000) as Promise<{ content: { text: string }[] }>;

  /** Resolves with the bridge's next `participant/status` whose server is in `state`. */
  function bridgeReport(state: string): Promise<AnyEnvelope> {
    return new Promise((resolve) => {
      const off = lead.client.on('participant/status', (envelope) => {
        if (envelope.from === 'remote' && reportOf(envelope).mcp_server?.state === state) {
          off();
          resolve(envelope);
        }
      });
    });
  }

  /** An operator's Connect, the browser following the authorization page back to the callback; the bridge then comes back ready. */
  async function connect(): Promise<{ answer: McpOAuthConnectAnswer; page: Response }> {
    const started = await api('/processes/remote/oauth/connect', 'lead', 'POST');
    expect(started.status).toBe(200);
    const answer = (await started.json()) as McpOAuthConnectAnswer;
    const authorization = await fetch(answer.authorization_url, { redirect: 'manual' });
    expect(authorization.status).toBe(302);
    const ready = bridgeReport('ready');
    const page = await fetch(authorization.headers.get('location')!);
    await ready;
    return { answer, page };
  }

  it('connects through Connect: discovery, registration and PKCE; the bridge then lists and calls the tools', async () => {
    // The bridge found the server wants a token nobody gave it yet: its card asks for Connect.
    await expect.poll(async () => (await report())?.state, { timeout: 15_000 }).toBe('authorization_required');
    expect(await report()).toEqual({ participant: 'remote', server: server.url, state: 'authorization_required' });
    expect(server.provider.counts).toMatchObject({ registrations: 0, authorizations: 0 });

    // Operators only.
    expect((await api('/processes/remote/oauth/connect', 'viewer', 'POST')).status).toBe(401);
    expect((await api('/processes/remote/oauth/connect', null, 'POST')).status).toBe(401);
    expect(await (await api('/processes/lead/oauth/connect', 'lead', 'POST')).json()).toMatchObject({ error: 'unknown_participant' });

    const started = await api('/processes/remote/oauth/connect', 'lead', 'POST');
    const { authorization_url, expires_at } = (await started.json()) as McpOAuthConnectAnswer;
    const link = new URL(authorization_url);
    expect(link.origin).toBe(new URL(server.url).origin);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: gw.httpUrl(`/api/spaces/${SPACE}/oauth/callback`),
      resource: server.url,
      scope: 'mcp:tools',
    });
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    expect(server.provider.counts.registrations).toBe(1);
    expect(await report()).toMatchObject({ state: 'authorizing' });

    // The operator's browser: the authorization page approves and sends it back to the server's callback.
    const authorization = await fetch(authorization_url, { redirect: 'manual' });
    const callback = authorization.headers.get('location')!;
    expect(callback.startsWith(gw.httpUrl(`/api/spaces/${SPACE}/oauth/callback?`))).toBe(true);
    const ready = bridgeReport('ready');
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('remote is connected to');
    // A state works once.
    const again = await fetch(callback);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_request' });

    // The bridge was restarted and got its token from the server.
    expect(reportOf(await ready).status).toMatch(/^ready: 2 tools from oauth-test-server$/);
    expect((await echo('through OAuth')).content[0].text).toBe('Echo: through OAuth');
    const connected = await report();
    expect(connected).toMatchObject({ state: 'connected', scopes: ['mcp:tools'], refreshable: true, connected_by: 'lead' });
    expect(Date.parse(connected.expires_at!)).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await (await api('/processes/remote/oauth', 'viewer')).json()).toEqual(connected);
    expect(server.provider.counts).toMatchObject({ registrations: 1, authorizations: 1, exchanges: 1, refreshes: 0 });

    // No secret left the server: not in its answers, not in the bridge's log.
    const [accessToken] = server.provider.accessTokens.keys();
    const [refreshToken] = server.provider.refreshTokens.keys();
    const log = await readFile(join(dataDir, SPACE, 'logs', 'remote.log'), 'utf8');
    for (const text of [JSON.stringify(connected), JSON.stringify(await (await api('/oauth')).json()), log]) {
      expect(text).not.toContain(accessToken);
      expect(text).not.toContain(refreshToken);
    }
  }, 40_000);

  it('refreshes a token the MCP server refuses, and the call goes through', async () => {
    await expect.poll(async () => (await report())?.state, { timeout: 15_000 }).toBe('authorization_required');
    await connect();
    expect((await echo('first')).content[0].text).toBe('Echo: first');
    const [first] = server.provider.accessTokens.keys();

    server.provider.expireAccessTokens();
    expect((await echo('after expiry')).content[0].text).toBe('Echo: after expiry');
    expect(server.provider.counts.refreshes).toBe(1);
    const second = [...server.provider.accessTokens.keys()].at(-1)!;
    expect(second).not.toBe(first);
    expect(await report()).toMatchObject({ state: 'connected', connected_by: 'lead' });

    // A token near its expiry is refreshed before the server hands it out; one the bridge did not send is not.
    const bridgeToken = gw.gateway.spaces.get(SPACE)!.services.records.mintedTokens().remote;
    const askAsBridge = (body: unknown) =>
      fetch(gw.httpUrl(`/api/spaces/${SPACE}/oauth/token`), {
        method: 'POST',
        headers: { Authorization: `Bearer ${bridgeToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<McpOAuthTokenAnswer>);
    expect(await askAsBridge({ refused: 'f'.repeat(64) })).toEqual({
      status: 'authorized',
      access_token: second,
      token_type: 'Bearer',
      expires_at: expect.any(String),
    });
    expect(server.provider.counts.refreshes).toBe(1);
    gw.host(SPACE)
      .context.database.db.prepare('UPDATE mcp_oauth SET expires_at = ?')
      .run(new Date(Date.now() + 30_000).toISOString());
    const renewed = await askAsBridge({});
    expect(renewed).toMatchObject({ status: 'authorized' });
    expect(renewed).not.toMatchObject({ access_token: second });
    expect(server.provider.counts.refreshes).toBe(2);

    // A bridge may ask for its own token only; anyone else's token is refused, and a participant that is no remote
    // bridge has none.
    const ask = (who: string) =>
      fetch(gw.httpUrl(`/api/spaces/${SPACE}/oauth/token`), {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenOf(who)}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
    expect((await ask('viewer')).status).toBe(404);
    expect((await fetch(gw.httpUrl(`/api/spaces/${SPACE}/oauth/token`), { method: 'POST', body: '{}' })).status).toBe(401);
  }, 40_000);

  it('Disconnect forgets and revokes the tokens, restarts the bridge, and the card asks for Connect again', async () => {
    await expect.poll(async () => (await report())?.state, { timeout: 15_000 }).toBe('authorization_required');
    await connect();
    expect((await api('/processes/remote/oauth', 'viewer', 'DELETE')).status).toBe(401);

    const crashed = bridgeReport('crashed');
    const disconnected = await api('/processes/remote/oauth', 'lead', 'DELETE');
    expect(disconnected.status).toBe(200);
    expect(await disconnected.json()).toEqual({ participant: 'remote', server: server.url, state: 'not_connected' });
    expect(server.provider.counts.revocations).toBe(2);
    expect(server.provider.refreshTokens.size).toBe(0);
    expect(server.provider.accessTokens.size).toBe(0);

    expect(reportOf(await crashed).mcp_server?.last_error).toMatch(/^authorization required: an operator connects it with Connect on its card$/);
    await expect.poll(async () => (await report()).state, { timeout: 10_000 }).toBe('authorization_required');
    await expect(echo('nobody authorized')).rejects.toThrow(/the MCP server is crashed \(authorization required/);
  }, 40_000);

  it('refuses an unknown, used or expired state and a refused authorization (400, JSON), and says why on the card', async () => {
    const callback = (query: string) => fetch(gw.httpUrl(`/api/spaces/${SPACE}/oauth/callback?${query}`));
    for (const query of ['code=abc', 'code=abc&state=not-one-we-issued']) {
      const refused = await callback(query);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_request' });
    }

    // Expired: its answer comes after the link's lifetime.
    const first = (await (await api('/processes/remote/oauth/connect', 'lead', 'POST')).json()) as McpOAuthConnectAnswer;
    gw.host(SPACE)
      .context.database.db.prepare('UPDATE mcp_oauth SET pending_expires_at = ?')
      .run(new Date(Date.now() - 1000).toISOString());
    const late = await fetch((await fetch(first.authorization_url, { redirect: 'manual' })).headers.get('location')!);
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: 'invalid_request', message: 'this authorization expired: start again with Connect' });

    // The user says no at the authorization server.
    server.provider.deny = true;
    const second = (await (await api('/processes/remote/oauth/connect', 'lead', 'POST')).json()) as McpOAuthConnectAnswer;
    const denied = await fetch((await fetch(second.authorization_url, { redirect: 'manual' })).headers.get('location')!);
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ error: 'invalid_request', message: 'the authorization was not granted: access_denied (the user said no)' });
    expect(await report()).toMatchObject({ last_error: 'the authorization was not granted: access_denied (the user said no)' });
    expect(server.provider.counts.exchanges).toBe(0);
  }, 40_000);
});

describe('the bridge’s side', () => {
  const source = (tokens: (string | undefined)[]): BearerTokenSource & { asked: (string | undefined)[] } => {
    const asked: (string | undefined)[] = [];
    return {
      asked,
      token: async () => undefined,
      refused: async (token) => (asked.push(token), tokens.shift()),
    };
  };
  const challenge = (status: number, authenticate?: string) =>
    new Response('no', { status, headers: authenticate ? { 'WWW-Authenticate': authenticate } : {} });

  it('sends the token only to the MCP server’s origin, asks once on a Bearer 401, and passes other answers through', async () => {
    const seen: [string, string | null][] = [];
    const base = async (url: string | URL, init?: RequestInit) => {
      const authorization = new Headers(init?.headers).get('Authorization');
      seen.push([String(url), authorization]);
      return authorization === 'Bearer fresh'
        ? new Response('ok')
        : challenge(401, 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
    };
    const tokens = source(['fresh']);
    const wrapped = authorizingFetch(tokens, 'https://mcp.example.com', base);
    expect(await (await wrapped('https://mcp.example.com/mcp', { method: 'POST', body: '{}' })).text()).toBe('ok');
    expect(seen).toEqual([
      ['https://mcp.example.com/mcp', null],
      ['https://mcp.example.com/mcp', 'Bearer fresh'],
    ]);
    expect(tokens.asked).toEqual([undefined]);

    // Elsewhere: untouched, never asked.
    seen.length = 0;
    expect((await wrapped('https://elsewhere.example.com/x')).status).toBe(401);
    expect(seen).toEqual([['https://elsewhere.example.com/x', null]]);
    // No token to be had: the 401 goes back as it came; a 401 that is no Bearer challenge asks nothing.
    const none = authorizingFetch(source([undefined]), 'https://mcp.example.com', base);
    expect((await none('https://mcp.example.com/mcp')).status).toBe(401);
    const basic = source(['fresh']);
    expect(
      (await authorizingFetch(basic, 'https://mcp.example.com', async () => challenge(401, 'Basic realm="x"'))('https://mcp.example.com/mcp')).status,
    ).toBe(401);
    expect(basic.asked).toEqual([]);
  });

  it('asks the server only once the MCP server wanted a token, shares one question, and says why there is none', async () => {
    const asked: unknown[] = [];
    let answer: { status: number; body: unknown } = { status: 200, body: { status: 'authorized', access_token: 'at-1', token_type: 'Bearer' } };
    const fake = (async (url: string | URL, init?: RequestInit) => {
      asked.push([String(url), new Headers(init?.headers).get('Authorization'), JSON.parse(String(init?.body))]);
      return new Response(JSON.stringify(answer.body), { status: answer.status });
    }) as typeof fetch;
    const source = new ServerTokenSource({ gateway: 'ws://127.0.0.1:3000/ws', space: 'a b', token: 'bridge-token', fetch: fake });
    expect(await source.token()).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await Promise.all([source.refused(undefined), source.refused(undefined)])).toEqual(['at-1', 'at-1']);
    expect(asked).toEqual([['http://127.0.0.1:3000/api/spaces/a%20b/oauth/token', 'Bearer bridge-token', {}]]);
    expect(await source.token()).toBe('at-1');
    expect(source.redact('the server echoed Bearer at-1')).toBe('the server echoed Bearer [redacted]');

    answer = { status: 200, body: { status: 'authorization_required', message: 'authorization required: connect it' } };
    expect(await source.refused('at-1')).toBeUndefined();
    expect(asked.at(-1)).toEqual([expect.any(String), 'Bearer bridge-token', { refused: createHash('sha256').update('at-1').digest('hex') }]);
    expect(source.shortfall).toEqual({ required: true, reason: 'authorization required: connect it' });
    answer = { status: 404, body: { error: 'unknown_participant' } };
    expect(await source.refused(undefined)).toBeUndefined();
    expect(source.shortfall).toBeUndefined();
  });

  it('finds the server’s HTTP API beside its gateway URL', () => {
    expect(httpBaseOf('ws://127.0.0.1:3000/ws')).toBe('http://127.0.0.1:3000');
    expect(httpBaseOf('wss://mew.example.com/team/ws?space=x')).toBe('https://mew.example.com/team');
  });
});
