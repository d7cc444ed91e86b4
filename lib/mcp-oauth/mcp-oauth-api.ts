import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import { requireCaller, requireOperator } from '../gateway/http-caller';
import { decodePathSegment, readJsonBody, sendJson } from '../gateway/http-util';
import type { McpOAuthList } from '../protocol';
import { callbackPage } from './callback-page';
import type { McpOAuthConnections } from './mcp-oauth-connections';

const SPACE_OAUTH_PATH = /^\/api\/spaces\/([^/]+)\/oauth(?:\/(callback|token))?$/;
const BRIDGE_OAUTH_PATH = /^\/api\/spaces\/([^/]+)\/processes\/([^/]+)\/oauth(?:\/(connect))?$/;

/** The largest body the token route reads (`{refused}`). */
const TOKEN_BODY_LIMIT = 4_096;

/**
 * The OAuth of a space's remote bridges:
 * - `GET /api/spaces/{space}/oauth` (members): each remote bridge's state, `McpOAuthList` (no secret in it);
 * - `GET …/processes/{participant}/oauth` (members): one of them;
 * - `POST …/processes/{participant}/oauth/connect` (operators): starts an authorization, `McpOAuthConnectAnswer`;
 * - `DELETE …/processes/{participant}/oauth` (operators): forgets (and revokes) its tokens, restarts the bridge;
 * - `GET /api/spaces/{space}/oauth/callback?code&state` (the redirect URI; the state is the credential): exchanges
 *   the code and answers a page saying so; an unknown, used or expired state is 400 `invalid_request` (JSON);
 * - `POST /api/spaces/{space}/oauth/token` (a bridge, with its own token): its access token, `McpOAuthTokenAnswer`.
 */
export function createMcpOAuthRoute(gateway: Gateway, connections: McpOAuthConnections) {
  return async function handleMcpOAuth(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const spaceWide = SPACE_OAUTH_PATH.exec(url.pathname);
    const ofBridge = spaceWide ? undefined : BRIDGE_OAUTH_PATH.exec(url.pathname);
    const match = spaceWide ?? ofBridge;
    if (!match) return false;
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);

    if (spaceWide) {
      const [, , what] = spaceWide;
      const method = what === 'token' ? 'POST' : 'GET';
      allow(req, res, [method]);
      if (what === 'callback') {
        const { participant, server } = await connections.callback(url.searchParams);
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Cache-Control': 'no-store',
          'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
          'Referrer-Policy': 'no-referrer',
        });
        res.end(callbackPage(participant, server));
        return true;
      }
      const caller = requireCaller(gateway, space, req);
      if (what === 'token') {
        if (!caller.participant) throw new GatewayError('invalid_token', 'a bridge asks for its token with its own participant token');
        const body = (await readJsonBody(req, TOKEN_BODY_LIMIT)) as { refused?: unknown } | null;
        const refused = typeof body?.refused === 'string' ? body.refused : undefined;
        sendJson(res, 200, await connections.token(caller.participant.id, refused));
        return true;
      }
      sendJson(res, 200, { connections: connections.list() } satisfies McpOAuthList);
      return true;
    }

    const [, , target, action] = ofBridge!;
    const participant = decodePathSegment(target);
    if (action === 'connect') {
      allow(req, res, ['POST']);
      const by = requireOperator(gateway, space, req, 'connecting an MCP server with OAuth').id;
      sendJson(res, 200, await connections.connect(participant, by));
      return true;
    }
    allow(req, res, ['GET', 'DELETE']);
    if (req.method === 'GET') {
      requireCaller(gateway, space, req);
      sendJson(res, 200, connections.report(participant));
      return true;
    }
    const by = requireOperator(gateway, space, req, 'disconnecting an MCP server’s OAuth').id;
    sendJson(res, 200, await connections.disconnect(participant, by));
    return true;
  };
}

function allow(req: IncomingMessage, res: ServerResponse, methods: string[]): void {
  if (methods.includes(req.method ?? 'GET')) return;
  res.setHeader('Allow', methods.join(', '));
  throw new GatewayError('method_not_allowed', `use ${methods.join(' or ')}`);
}
