import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PersistenceError } from './persistence-error';

/** The one database of a data directory: tokens, run-time state, history and the audit log. */
export const DATABASE_FILE = 'mew.sqlite';
/** Where the audit log lived before everything moved into one database; renamed on first start. */
const LEGACY_AUDIT_FILE = 'audit.sqlite';

/** Bumped when these tables change; a file written by a newer gateway is refused rather than misread. */
const SCHEMA_VERSION = 1;
const COMPONENT = 'gateway';

/**
 * How long a statement waits for another connection's lock (the audit log and operator tools open the same file).
 * Writes run on the gateway's event loop, so it stays short.
 */
const BUSY_TIMEOUT_MS = 1000;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT;
  -- Tokens the gateway minted (config tokens stay in the config). role 'admin' has holder ''.
  CREATE TABLE IF NOT EXISTS tokens (
    space  TEXT NOT NULL,
    role   TEXT NOT NULL CHECK (role IN ('participant', 'admin')),
    holder TEXT NOT NULL,
    token  TEXT NOT NULL,
    PRIMARY KEY (space, role, holder)
  ) STRICT;
  -- A space's run-time state (grants, revocations, invites, kicks, pauses) as one validated document, so a change
  -- is one row written in the same transaction as the tokens it mints or removes.
  CREATE TABLE IF NOT EXISTS space_state (
    space TEXT PRIMARY KEY,
    data  TEXT NOT NULL CHECK (json_valid(data))
  ) STRICT;
  -- Numbered history in chunks (one row per batch, JSON lines {"seq","at","to","envelope"}): one B-tree insert per
  -- batch instead of one per envelope keeps durable history cheap on the message path.
  CREATE TABLE IF NOT EXISTS history_chunks (
    space     TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq  INTEGER NOT NULL,
    entries   TEXT NOT NULL,
    PRIMARY KEY (space, first_seq)
  ) STRICT, WITHOUT ROWID;
  -- Approval rules, every version kept (an edit is a new version; a deletion marks the id deleted).
  CREATE TABLE IF NOT EXISTS approval_rules (
    space      TEXT NOT NULL,
    id         TEXT NOT NULL,
    version    INTEGER NOT NULL,
    data       TEXT NOT NULL CHECK (json_valid(data)),
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (space, id, version)
  ) STRICT;
  -- What rules did: a decision (hit), what a shadow rule would have decided (shadow_hit), and a shadow approve that
  -- a human then rejected (shadow_conflict). Counts and the last hit on the rules view come from here.
  CREATE TABLE IF NOT EXISTS rule_events (
    space       TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    version     INTEGER NOT NULL,
    event       TEXT NOT NULL CHECK (event IN ('hit', 'shadow_hit', 'shadow_conflict')),
    decision    TEXT NOT NULL,
    proposal_id TEXT NOT NULL,
    at          TEXT NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS rule_events_by_rule ON rule_events (space, rule_id);
  -- clean = 1 once a gateway closed after writing everything; 0 while one runs.
  CREATE TABLE IF NOT EXISTS history_epochs (
    space TEXT PRIMARY KEY,
    epoch TEXT NOT NULL,
    clean INTEGER NOT NULL
  ) STRICT;
`;

/**
 * The SQLite database of a data directory (`<dataDir>/mew.sqlite`, mode 0600, WAL), or an in-memory one without a
 * data directory (tests). Opening checks that the file is a database this gateway understands; any failure is a
 * `PersistenceError` naming the file.
 */
export class GatewayDatabase {
  private constructor(
    readonly db: Database.Database,
    /** The file, or `:memory:`. */
    readonly file: string,
    /** Where legacy JSON files of each space may wait to be migrated; undefined in memory. */
    readonly dataDir: string | undefined,
  ) {}

  static open(dataDir?: string): GatewayDatabase {
    if (!dataDir) return new GatewayDatabase(prepare(new Database(':memory:'), ':memory:'), ':memory:', undefined);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DATABASE_FILE);
    adoptLegacyAuditFile(dataDir, file);
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    } catch (e) {
      throw new PersistenceError(file, `cannot open the database: ${(e as Error).message}`, { cause: e });
    }
    try {
      chmodSync(file, 0o600); // SQLite gives the -wal and -shm files the main file's mode
      return new GatewayDatabase(prepare(db, file), file, dataDir);
    } catch (e) {
      db.close();
      throw e instanceof PersistenceError ? e : new PersistenceError(file, `cannot use the database: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Runs `work` in one immediate transaction: all of it is written, or none. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function prepare(db: Database.Database, file: string): Database.Database {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(COMPONENT) as { version: number } | undefined;
  if (row && row.version > SCHEMA_VERSION) {
    throw new PersistenceError(file, `written by a newer gateway (schema version ${row.version}; this one knows ${SCHEMA_VERSION})`);
  }
  db.prepare('INSERT OR REPLACE INTO schema_versions (component, version) VALUES (?, ?)').run(COMPONENT, SCHEMA_VERSION);
  return db;
}

/** The audit log used to have a file of its own: it becomes the shared database, so no audit record is lost. */
function adoptLegacyAuditFile(dataDir: string, file: string): void {
  const legacy = join(dataDir, LEGACY_AUDIT_FILE);
  if (existsSync(file) || !existsSync(legacy)) return;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(legacy + suffix)) renameSync(legacy + suffix, file + suffix);
}
