import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { bearer, decodePathSegment, readBody, sendJson } from '../gateway/http-util';
import type { Space } from '../gateway/space';
import type { DiscoveredTool } from '../sdk/tool-discovery';
import type { TransportFactory } from '../sdk/transport';
import { JSONRPC_ERROR_CODES } from '../protocol';
import type { McpSpaceSession } from './mcp-session';
import type { OpenProposals } from './open-proposals';

/** `/mcp/{space}`, and `/mcp?space=NAME` for clients that rewrite any path not ending in `/mcp`. */
const MCP_PATH = /^\/mcp(?:\/([^/]+))?\/?$/;
/** Sessions one space serves at once; past it a new client is refused (503) rather than the server overloaded. */
export const MAX_MCP_SESSIONS = 1_000;
/** A session no request has used for this long is ended (clients that never send DELETE). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
const SWEEP_EVERY_MS = 60_000;

export interface McpEndpointOptions {
  gateway: Gateway;
  space: Space;
  /** This server's own WebSocket URL, where each session's participant joins. */
  gatewayUrl: string;
  /** How it joins: in this process, as one of the participant's connections (`SpaceHostContext.join`). */
  join?: TransportFactory;
  /** The tools the space has seen listed, for sessions that may propose calls but not list tools themselves. */
  catalog?(): DiscoveredTool[];
  /** Where sessions record the proposals they wait on (withdrawn at the next start if the server stops meanwhile). */
  proposals?: OpenProposals;
  log(line: string): void;
}

/** The space's MCP endpoint: its HTTP route and its live sessions. */
export interface McpEndpoint {
  readonly route: HttpRoute;
  readonly sessions: ReadonlyMap<string, McpSpaceSession>;
  close(): Promise<void>;
}

/**
 * The space as an MCP server (Streamable HTTP: POST, GET for the server's stream, DELETE to end a session). The
 * client authenticates as a participant with its token (`Authorization: Bearer`, or `?token=` for clients that
 * cannot set headers), on every request: a session belongs to the participant that opened it.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { gateway, space } = options;
  const sessions = new Map<string, McpSpaceSession>();
  const opening = new Set<McpSpaceSession>();
  const sweeper = setInterval(() => {
    const idleSince = Date.now() - MCP_SESSION_IDLE_MS;
    for (const session of sessions.values()) if (session.lastUsed < idleSince) void session.close();
  }, SWEEP_EVERY_MS);
  sweeper.unref();

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = MCP_PATH.exec(url.pathname);
    if (!match) return false;
    const named = match[1] === undefined ? url.searchParams.get('space') : decodePathSegment(match[1]);
    if (named !== null && named !== space.id) return false; // another space's (the host dispatches by space)
    const token = bearer(req) ?? url.searchParams.get('token') ?? undefined;
    const participant = token === undefined ? undefined : gateway.authenticate(space, token, { via: 'http', address: req.socket.remoteAddress });
    if (!participant) {
      res.setHeader('WWW-Authenticate', `Bearer realm="mew", error="invalid_token"`);
      throw new GatewayError('invalid_token', token === undefined ? 'missing Authorization: Bearer token (or ?token=)' : 'unknown or revoked token');
    }
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await jsonBody(req, res, space.limits.maxFrameBytes) : undefined;
    if (body === INVALID) return true;
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // The transport spec's answer to an ended or unknown session: 404, and the client starts a new one.
      if (!session) return rpcError(res, 404, JSONRPC_ERROR_CODES.sessionNotFound, 'Session not found');
      if (session.participantId !== participant.id)
        throw new GatewayError('identity_mismatch', `this session belongs to another participant, not "${participant.id}"`);
      await session.handle(req, res, body);
      return true;
    }
    if (req.method !== 'POST' || !isInitialize(body))
      return rpcError(res, 400, JSONRPC_ERROR_CODES.invalidRequest, 'Bad Request: no Mcp-Session-Id; start a session with initialize');
    if (sessions.size + opening.size >= MAX_MCP_SESSIONS)
      throw new GatewayError('space_unavailable', `space "${space.id}" serves ${MAX_MCP_SESSIONS} MCP sessions already; end one (DELETE) or retry later`);
    // The MCP SDK loads with the first session: a space no MCP client uses pays nothing for it.
    const { McpSpaceSession } = await import('./mcp-session');
    const session = new McpSpaceSession({
      gatewayUrl: options.gatewayUrl,
      transport: options.join,
      catalog: options.catalog,
      proposals: options.proposals,
      space: space.id,
      token: token!,
      log: (line) => options.log(`[${space.id}/mcp ${participant.id}] ${line}`),
      onInitialized: (opened) => {
        if (opened.sessionId) sessions.set(opened.sessionId, opened);
      },
      onClosed: (closed) => {
        opening.delete(closed);
        if (closed.sessionId) sessions.delete(closed.sessionId);
      },
    });
    opening.add(session);
    try {
      await session.open();
    } catch (error) {
      await session.close();
      throw new GatewayError('space_unavailable', `could not join space "${space.id}" as ${participant.id}: ${(error as Error).message}`);
    } finally {
      opening.delete(session);
    }
    await session.handle(req, res, body);
    return true;
  }

  return {
    route,
    sessions,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.values(), ...opening].map((session) => session.close()));
    },
  };
}

const INVALID = Symbol('invalid body');

/** A JSON-RPC `initialize` request (the SDK's transport validates the rest of it). */
function isInitialize(body: unknown): boolean {
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown } | null;
  return typeof message === 'object' && message !== null && message.jsonrpc === '2.0' && message.method === 'initialize' && message.id !== undefined;
}

/** The POST body as JSON; a malformed one is answered here (JSON-RPC parse error) and `INVALID` returned. */
async function jsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    rpcError(res, 400, JSONRPC_ERROR_CODES.parseError, `Parse error: ${(error as Error).message}`);
    return INVALID;
  }
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): true {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
  return true;
}
