import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
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

const MARKER_SUFFIX = '.id';
/**
 * Written beside the database when the gateway creates it: the instance id also stored inside it. Without it a
 * deleted, emptied or swapped database would silently become a fresh one (every token re-minted, old ones 401,
 * grants, invites and audit gone); with it, opening refuses instead.
 */
export const INSTANCE_MARKER_FILE = DATABASE_FILE + MARKER_SUFFIX;
/** The marker of a database file (of one moved aside, too). */
const markerOf = (databaseFile: string) => databaseFile + MARKER_SUFFIX;
/** Starting over on purpose: the server reads this variable and passes it to `open` as `startFresh`. */
export const START_FRESH_ENV = 'MEW_START_FRESH';
/** What SQLite keeps beside the database; left behind by a crash, or by deleting only the database. */
const COMPANION_SUFFIXES = ['-wal', '-shm'] as const;
/** The end of every refusal of a data directory: how to get the data back, or how to start over on purpose. */
const START_OVER = `restore it from a backup, or set ${START_FRESH_ENV}=1 to move the old files aside and start a new database`;
/** Tables only this gateway creates: a database with none of them never held a gateway's state. */
const GATEWAY_TABLES = ['schema_versions', 'tokens', 'space_state', 'history_chunks'] as const;
/** The instance id inside the database (kept apart from SCHEMA: it is written once, when the marker is). */
const INSTANCE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS gateway_instance (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    id        TEXT NOT NULL
  ) STRICT;
`;

/**
 * What a commit survives: `process` (the default: `synchronous = NORMAL`, a commit is in the WAL file without fsync;
 * it survives the process being killed, not the machine losing power) or `power` (`synchronous = FULL`, an fsync per
 * commit). Set by `MEW_DURABILITY`.
 */
export type Durability = 'process' | 'power';
export const DURABILITY_LEVELS: readonly Durability[] = ['process', 'power'];

export interface OpenOptions {
  /**
   * When the data directory would be refused (its database missing, emptied, not a database or not its own), move
   * its database files aside (renamed with a timestamp, never deleted) and start a new one. A sound database is
   * never touched, so the setting is harmless if left on.
   */
  startFresh?: boolean;
  /** @default 'process' */
  durability?: Durability;
  /** Where the line saying where the old files went is written. Default: stderr. */
  log?: (line: string) => void;
}

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
  -- clean = 1 once a gateway closed after writing everything; 0 while one runs.
  CREATE TABLE IF NOT EXISTS history_epochs (
    space TEXT PRIMARY KEY,
    epoch TEXT NOT NULL,
    clean INTEGER NOT NULL
  ) STRICT;
  -- Numberings a space used before an unclean stop: cursors <epoch>-<seq> with from_seq <= seq <= to_seq still name
  -- those positions (numbers keep growing under the next epoch).
  CREATE TABLE IF NOT EXISTS history_past_epochs (
    space    TEXT NOT NULL,
    epoch    TEXT NOT NULL,
    from_seq INTEGER NOT NULL,
    to_seq   INTEGER NOT NULL,
    PRIMARY KEY (space, epoch)
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

  /**
   * Opens (or creates) the database of `dataDir`. Refuses a data directory whose database is missing, empty, not a
   * database, without the gateway's tables or not the one it was created with (see `INSTANCE_MARKER_FILE`), unless
   * `startFresh` moves everything aside first. A brand new, empty directory just starts.
   */
  static open(dataDir?: string, options: OpenOptions = {}): GatewayDatabase {
    if (!dataDir) return new GatewayDatabase(prepare(new Database(':memory:'), ':memory:', options.durability), ':memory:', undefined);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DATABASE_FILE);
    try {
      return GatewayDatabase.openFile(dataDir, file, options);
    } catch (e) {
      if (!options.startFresh || !(e instanceof PersistenceError)) throw e;
      moveAside(file, options.log ?? ((line) => console.warn(line)), e.message);
      return GatewayDatabase.openFile(dataDir, file, options);
    }
  }

  private static openFile(dataDir: string, file: string, options: OpenOptions): GatewayDatabase {
    const marker = readMarker(file);
    refuseMissingOrEmpty(file, marker);
    adoptLegacyAuditFile(dataDir, file);
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    } catch (e) {
      throw new PersistenceError(file, `cannot open the database: ${(e as Error).message}`, { cause: e });
    }
    try {
      chmodSync(file, 0o600); // SQLite gives the -wal and -shm files the main file's mode
      const found = inspect(db, file);
      if (marker !== undefined) refuseUnlike(file, marker, found);
      const gateway = new GatewayDatabase(prepare(db, file, options.durability), file, dataDir);
      // A database from before the marker (or whose marker write was interrupted) is adopted: it held state, nothing is lost.
      if (marker === undefined) writeMarker(file, found.instanceId ?? recordInstanceId(db));
      return gateway;
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

function prepare(db: Database.Database, file: string, durability: Durability = 'process'): Database.Database {
  db.pragma('journal_mode = WAL');
  db.pragma(durability === 'power' ? 'synchronous = FULL' : 'synchronous = NORMAL');
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

/** The instance id the marker holds, or undefined without a marker. */
function readMarker(file: string): string | undefined {
  const marker = markerOf(file);
  if (!existsSync(marker)) return undefined;
  try {
    return readFileSync(marker, 'utf8').trim();
  } catch (e) {
    throw new PersistenceError(marker, `cannot read the database's marker: ${(e as Error).message}`, { cause: e });
  }
}

/** A database file that is gone while the directory shows it held one, or that is empty, is not started afresh. */
function refuseMissingOrEmpty(file: string, marker: string | undefined): void {
  if (!existsSync(file)) {
    const left = [...(marker !== undefined ? [markerOf(file)] : []), ...COMPANION_SUFFIXES.map((suffix) => file + suffix).filter(existsSync)].map((f) =>
      basename(f),
    );
    if (left.length === 0) return; // a new data directory
    throw new PersistenceError(
      file,
      `the database is missing but this data directory held one (${left.join(' and ')} ${left.length > 1 ? 'are' : 'is'} still there); ${START_OVER}`,
    );
  }
  // SQLite would take an empty file for a new database; the gateway writes a header at once, so this one was emptied.
  if (statSync(file).size === 0) throw new PersistenceError(file, `the database file is empty (0 bytes); ${START_OVER}`);
}

interface Found {
  hasGatewayTables: boolean;
  instanceId: string | undefined;
}

/** What the file holds, read before anything is created in it; a file that is not a database is refused here. */
function inspect(db: Database.Database, file: string): Found {
  let tables: Set<string>;
  try {
    tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
      throw new PersistenceError(file, `cannot use the database: ${(e as Error).message}; ${START_OVER}`, { cause: e });
    throw e;
  }
  const row = tables.has('gateway_instance')
    ? (db.prepare('SELECT id FROM gateway_instance WHERE singleton = 1').get() as { id: string } | undefined)
    : undefined;
  return { hasGatewayTables: GATEWAY_TABLES.some((table) => tables.has(table)), instanceId: row?.id };
}

/** With a marker, the database must be the gateway's and the very one the marker names. */
function refuseUnlike(file: string, marker: string, found: Found): void {
  const markerName = basename(markerOf(file));
  if (!found.hasGatewayTables) {
    throw new PersistenceError(
      file,
      `the database has none of the gateway's tables although ${markerName} says this data directory held the gateway's database; ${START_OVER}`,
    );
  }
  if (found.instanceId !== marker) {
    throw new PersistenceError(
      file,
      `this is not the database this data directory was created with (instance ${found.instanceId ?? 'unknown'}, ${markerName} says ${marker}); put the right one back, delete ${markerName} to adopt this one, or set ${START_FRESH_ENV}=1 to move the old files aside and start a new database`,
    );
  }
}

/** Gives the database its instance id, durably before the marker names it (a marker must never outlive its id). */
function recordInstanceId(db: Database.Database): string {
  const id = randomUUID();
  db.exec(INSTANCE_SCHEMA);
  db.prepare('INSERT INTO gateway_instance (singleton, id) VALUES (1, ?)').run(id);
  db.pragma('wal_checkpoint(FULL)'); // WAL with synchronous=NORMAL syncs at checkpoints, not at each commit
  return id;
}

/** Writes the marker atomically (temporary file, sync, rename), mode 0600 like the database. */
function writeMarker(file: string, instanceId: string): void {
  const marker = markerOf(file);
  const temporary = `${marker}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, `${instanceId}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, marker);
    const dir = openSync(dirname(marker), 'r');
    try {
      fsyncSync(dir); // the rename itself survives a power loss
    } finally {
      closeSync(dir);
    }
  } catch (e) {
    throw new PersistenceError(marker, `cannot write the database's marker: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Starting over on purpose: the database, its -wal/-shm and its marker are renamed `mew.sqlite.moved-<time>` (with
 * the same suffixes, so SQLite still pairs them), never deleted; one line says where they went.
 */
function moveAside(file: string, log: (line: string) => void, reason: string): void {
  const sources = [file, ...COMPANION_SUFFIXES.map((suffix) => file + suffix), markerOf(file)];
  if (!sources.some(existsSync)) return;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let base = `${file}.moved-${stamp}`;
  for (let n = 1; [base, ...COMPANION_SUFFIXES.map((suffix) => base + suffix), markerOf(base)].some(existsSync); n++) base = `${file}.moved-${stamp}-${n}`;
  const targets = [base, ...COMPANION_SUFFIXES.map((suffix) => base + suffix), markerOf(base)];
  const moved: string[] = [];
  sources.forEach((source, i) => {
    if (!existsSync(source)) return;
    renameSync(source, targets[i]);
    moved.push(`${basename(source)} → ${basename(targets[i])}`);
  });
  log(
    `[gateway] ${START_FRESH_ENV}=1 and the data directory was refused (${reason}): moved its database files aside in ${dirname(file)} (${moved.join(', ')}); starting a new database`,
  );
}
