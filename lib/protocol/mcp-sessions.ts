// The MCP clients joined as participants (`/mcp/{space}`): `GET /api/spaces/{space}/mcp/sessions` (members) lists
// them; `DELETE …/mcp/sessions/{id_prefix}` (operators) ends one, audited (`MCP_SESSION_ENDED`).

/** How many characters of a session id the list shows: enough to name one, never the id (it is the session's bearer). */
export const MCP_SESSION_ID_PREFIX_LENGTH = 8;

/** One live MCP session of the space. */
export interface McpSessionReport {
  /** The first {@link MCP_SESSION_ID_PREFIX_LENGTH} characters of its id: what `DELETE …/mcp/sessions/{id_prefix}` takes. */
  id_prefix: string;
  /** The participant it joined as (the token the client presented). */
  participant: string;
  /** What the client said it is in its `initialize` (`clientInfo`), when it said. */
  client?: { name: string; version: string };
  /** ISO 8601. */
  opened_at: string;
  /** When a request of the client last arrived (ISO 8601). */
  last_used_at: string;
  /** Its calls waiting for a supervisor's decision (proposals it withdraws if it ends). */
  waiting: number;
}

/** The body of `GET /api/spaces/{space}/mcp/sessions` (`?participant=` keeps one participant's). */
export interface McpSessionList {
  sessions: McpSessionReport[];
}

/** The body of a `DELETE …/mcp/sessions/{id_prefix}` that ended a session. */
export interface McpSessionEnded {
  ended: McpSessionReport;
}

/** The path of the endpoint, relative to `/api/spaces/{space}` (what the control room's `spaceApi` takes). */
export function mcpSessionsPath(idPrefix?: string): string {
  return idPrefix === undefined ? '/mcp/sessions' : `/mcp/sessions/${encodeURIComponent(idPrefix)}`;
}
