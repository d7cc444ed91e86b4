import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { requireCaller } from '../gateway/http-caller';
import { decodePathSegment, sendJson } from '../gateway/http-util';
import type { Space } from '../gateway/space';
import { MCP_SESSION_ID_PREFIX_LENGTH, type McpSessionEnded, type McpSessionList, type McpSessionReport } from '../protocol';
import type { McpSpaceSession } from './mcp-session';

const SESSIONS_PATH = /^\/api\/spaces\/([^/]+)\/mcp\/sessions(?:\/([^/]+))?\/?$/;

/**
 * The MCP clients joined as participants: `GET /api/spaces/{space}/mcp/sessions` (members; `?participant=` keeps
 * one's) lists the live sessions, each named by the first characters of its id only (the id is the session's
 * bearer); `DELETE …/mcp/sessions/{id_prefix}` (operators) ends one — its calls waiting for approval are withdrawn —
 * audited (`MCP_SESSION_ENDED`) before it ends. An unknown prefix is 404, one that names several sessions 409.
 */
export function createMcpSessionsRoute(gateway: Gateway, space: Space, sessions: ReadonlyMap<string, McpSpaceSession>, audit: AuditSink): HttpRoute {
  return async function handleMcpSessions(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = SESSIONS_PATH.exec(url.pathname);
    if (!match || decodePathSegment(match[1]) !== space.id) return false;
    const prefix = match[2] === undefined ? undefined : decodePathSegment(match[2]);
    const allowed = prefix === undefined ? 'GET' : 'DELETE';
    if (req.method !== allowed) {
      res.setHeader('Allow', allowed);
      throw new GatewayError('method_not_allowed', `use ${allowed}`);
    }
    const caller = requireCaller(gateway, space, req);
    if (prefix === undefined) {
      const participant = url.searchParams.get('participant');
      const list = [...sessions.entries()].filter(([, session]) => participant === null || session.participantId === participant);
      sendJson(res, 200, { sessions: list.map(([id, session]) => report(id, session)) } satisfies McpSessionList);
      return true;
    }
    if (!caller.operator)
      throw new GatewayError('capability_violation', 'ending an MCP session needs the admin token or an operator’s token (unrestricted capability/grant)');
    const found = prefix === '' ? [] : [...sessions.entries()].filter(([id]) => id.startsWith(prefix));
    if (found.length === 0) throw new GatewayError('unknown_mcp_session', `no live MCP session of space "${space.id}" starts with "${prefix}"`);
    if (found.length > 1) throw new GatewayError('ambiguous_mcp_session', `${found.length} MCP sessions of space "${space.id}" start with "${prefix}"`);
    const [id, session] = found[0];
    const ended = report(id, session);
    audit.recordNow({
      space: space.id,
      type: 'MCP_SESSION_ENDED',
      actor: caller.id,
      subject: ended.participant,
      details: {
        id_prefix: ended.id_prefix,
        ...(ended.client && { client: ended.client.name, client_version: ended.client.version }),
        withdrawn: ended.waiting,
      },
    });
    await session.close();
    sendJson(res, 200, { ended } satisfies McpSessionEnded);
    return true;
  };
}

function report(id: string, session: McpSpaceSession): McpSessionReport {
  const client = session.client();
  return {
    id_prefix: id.slice(0, MCP_SESSION_ID_PREFIX_LENGTH),
    participant: session.participantId ?? '',
    ...(client && { client }),
    opened_at: new Date(session.openedAt).toISOString(),
    last_used_at: new Date(session.lastUsed).toISOString(),
    waiting: session.waiting,
  };
}
