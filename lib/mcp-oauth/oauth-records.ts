import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { putRow, type ChangeListener, type FeatureTable, type TableRow } from '../host/change-record';

export const MCP_OAUTH_TABLES: readonly FeatureTable[] = [
  {
    // One row per launched remote bridge that needed or has an authorization. Secrets (the client secret inside
    // client_information, tokens, pending_verifier) are read by this server alone: no answer, log or page shows them.
    name: 'mcp_oauth',
    schema: `
      CREATE TABLE IF NOT EXISTS mcp_oauth (
        space              TEXT NOT NULL,
        participant        TEXT NOT NULL,
        server_url         TEXT NOT NULL,
        client_information TEXT CHECK (client_information IS NULL OR json_valid(client_information)),
        discovery          TEXT CHECK (discovery IS NULL OR json_valid(discovery)),
        tokens             TEXT CHECK (tokens IS NULL OR json_valid(tokens)),
        expires_at         TEXT,
        connected_by       TEXT,
        connected_at       TEXT,
        pending_state      TEXT,
        pending_client     TEXT CHECK (pending_client IS NULL OR json_valid(pending_client)),
        pending_verifier   TEXT,
        pending_by         TEXT,
        pending_expires_at TEXT,
        needed_at          TEXT,
        last_error         TEXT,
        updated_at         TEXT NOT NULL,
        PRIMARY KEY (space, participant)
      ) STRICT;
      CREATE INDEX IF NOT EXISTS mcp_oauth_pending ON mcp_oauth (space, pending_state);`,
  },
];

/**
 * A remote bridge's OAuth state as stored: its client registration with the authorization server (the one its tokens
 * were issued to), what discovery found, its tokens (`tokens`: the SDK's `OAuthTokens` as saved, refresh token
 * included), the authorization under way (`pending_state`: the SHA-256 of its `state`; `pending_client`: the
 * registration it was started with; `pending_verifier`: its PKCE code verifier), and what went wrong last.
 */
export interface OAuthRow {
  participant: string;
  /** The MCP server it was registered and authorized for: another URL (a changed config) starts over. */
  server_url: string;
  client_information: string | null;
  discovery: string | null;
  tokens: string | null;
  expires_at: string | null;
  connected_by: string | null;
  connected_at: string | null;
  pending_state: string | null;
  pending_client: string | null;
  pending_verifier: string | null;
  pending_by: string | null;
  pending_expires_at: string | null;
  /** When the bridge last found the server wants a token this server did not have. */
  needed_at: string | null;
  last_error: string | null;
  updated_at: string;
}

/** A space's remote bridges' OAuth rows in the host's database; every row written or deleted is told to `replicate`. */
export class OAuthRecords {
  constructor(
    private readonly database: GatewayDatabase,
    private readonly space: string,
    private readonly replicate?: ChangeListener,
  ) {}

  get(participant: string): OAuthRow | undefined {
    return this.database.db.prepare('SELECT * FROM mcp_oauth WHERE space = ? AND participant = ?').get(this.space, participant) as OAuthRow | undefined;
  }

  /** The row whose authorization under way has this state (its SHA-256), if any. */
  byPendingState(stateHash: string): OAuthRow | undefined {
    return this.database.db.prepare('SELECT * FROM mcp_oauth WHERE space = ? AND pending_state = ?').get(this.space, stateHash) as OAuthRow | undefined;
  }

  /**
   * Changes a participant's row (creating it for `serverUrl`; one for another URL is started over, its registration
   * and tokens dropped: they belong to another server). Returns the row as written.
   */
  update(participant: string, serverUrl: string, changes: Partial<Omit<OAuthRow, 'participant' | 'server_url' | 'updated_at'>>, now = new Date()): OAuthRow {
    const kept = this.get(participant);
    const base: OAuthRow = kept && kept.server_url === serverUrl ? kept : emptyRow(participant, serverUrl);
    const row: OAuthRow = { ...base, ...changes, participant, server_url: serverUrl, updated_at: now.toISOString() };
    const full: TableRow = { space: this.space, ...row };
    this.database.transaction(() => {
      putRow(this.database.db, 'mcp_oauth', full);
      this.replicate?.({ table: 'mcp_oauth', key: JSON.stringify([participant]), row: full });
    });
    return row;
  }
}

function emptyRow(participant: string, serverUrl: string): OAuthRow {
  return {
    participant,
    server_url: serverUrl,
    client_information: null,
    discovery: null,
    tokens: null,
    expires_at: null,
    connected_by: null,
    connected_at: null,
    pending_state: null,
    pending_client: null,
    pending_verifier: null,
    pending_by: null,
    pending_expires_at: null,
    needed_at: null,
    last_error: null,
    updated_at: new Date(0).toISOString(),
  };
}
