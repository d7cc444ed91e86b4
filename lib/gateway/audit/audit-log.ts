import { maskValue } from '../../secrets/secret-masking';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AUDIT_ACTOR_GATEWAY, type AuditEvent } from '../../protocol';
import { toWellFormedText } from '../../protocol/well-formed-text';
import { AUDIT_GENESIS_HASH, hashAuditEvent, verifyAuditChain, type AuditVerifyResult } from './audit-chain';
import type { AuditRecord } from './audit-event';
import { canonicalJson } from './canonical-json';

/** A quiet queue is written this long after its first event, so a burst becomes one transaction. */
export const AUDIT_FLUSH_INTERVAL_MS = 50;
/** Events per transaction; a queue this long is written on the next turn of the event loop, without the wait. */
export const AUDIT_MAX_BATCH = 500;
/**
 * Events held in memory while the database cannot keep up or fails (disk full, locked). Beyond it new events are
 * dropped, counted, and reported as an `AUDIT_EVENTS_DROPPED` event once writing works again: memory stays
 * bounded and the gap is on the record.
 */
export const AUDIT_MAX_QUEUE = 100_000;
/** After a failed write, the next attempt waits this long (a failing disk is not retried in a tight loop). */
export const AUDIT_RETRY_INTERVAL_MS = 1000;
/**
 * How long a write waits for another connection's lock. Short, because writes run on the gateway's event loop;
 * a batch that times out stays queued and is retried.
 */
export const AUDIT_BUSY_TIMEOUT_MS = 250;
/** `query` limit when none is given, and the most one call returns (page with `afterId` / `beforeId`). */
export const AUDIT_QUERY_DEFAULT_LIMIT = 100;
export const AUDIT_QUERY_MAX_LIMIT = 1000;
/** Keys of `details` (at any depth, case-insensitive) whose values are stored as `[redacted]`: tokens are never logged. */
export const AUDIT_REDACTED_KEYS: ReadonlySet<string> = new Set(['token', 'tokens', 'access_token', 'authorization', 'password', 'secret']);
/** The table; exported for tools and tests that open the file directly. */
export const AUDIT_TABLE = 'audit_events';

/** Bumped when the schema changes; a file from a newer version is refused rather than misread. */
const SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    ts          TEXT NOT NULL,
    space       TEXT NOT NULL,
    type        TEXT NOT NULL,
    actor       TEXT,
    subject     TEXT,
    envelope_id TEXT,
    details     TEXT NOT NULL CHECK (json_valid(details)),
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_space_id ON ${AUDIT_TABLE} (space, id);
  CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_space_type ON ${AUDIT_TABLE} (space, type);
  CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_space_actor ON ${AUDIT_TABLE} (space, actor);
  CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_space_subject ON ${AUDIT_TABLE} (space, subject);
  CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_ts ON ${AUDIT_TABLE} (ts);
  -- Append-only even for direct SQL. Dropping a trigger is still possible, which is what the hash chain is for.
  CREATE TRIGGER IF NOT EXISTS ${AUDIT_TABLE}_no_update BEFORE UPDATE ON ${AUDIT_TABLE}
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
  CREATE TRIGGER IF NOT EXISTS ${AUDIT_TABLE}_no_delete BEFORE DELETE ON ${AUDIT_TABLE}
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
`;

export interface AuditLogOptions {
  /** @default AUDIT_FLUSH_INTERVAL_MS */
  flushIntervalMs?: number;
  /** @default AUDIT_MAX_BATCH */
  maxBatch?: number;
  /** @default AUDIT_MAX_QUEUE */
  maxQueue?: number;
  /** @default AUDIT_RETRY_INTERVAL_MS */
  retryIntervalMs?: number;
  /** @default AUDIT_BUSY_TIMEOUT_MS */
  busyTimeoutMs?: number;
  /**
   * Told about failed background writes, overflow and records after close (none of which may throw into the
   * message path). @default console.error
   */
  onError?: (error: Error) => void;
}

/** Filters of {@link AuditLog.query}. All given filters must match. */
export interface AuditQuery {
  space: string;
  /** One type or any of several; an empty array means any type. */
  type?: string | readonly string[];
  /** Events this participant did (actor) or that were done to it (subject). */
  participant?: string;
  /** Events this participant did. */
  actor?: string;
  /** One proposal's trail: events whose `details.trace_id` is this. */
  trace?: string;
  /** Events whose type, actor, subject, envelope id or details contain this text (case-insensitive). */
  text?: string;
  /** Events at or after this time (ISO 8601, any offset). */
  since?: string;
  /** Events before this time (ISO 8601, any offset). */
  until?: string;
  /** Events with a larger id: the next page when reading oldest first. */
  afterId?: number;
  /** Events with a smaller id: the next page when reading newest first. */
  beforeId?: number;
  /** @default AUDIT_QUERY_DEFAULT_LIMIT, at most AUDIT_QUERY_MAX_LIMIT */
  limit?: number;
  /** By id: `asc` oldest first. @default 'asc' */
  order?: 'asc' | 'desc';
}

export type AuditCountQuery = Omit<AuditQuery, 'limit' | 'order'>;

/** A record waiting in memory; `ts` is fixed when it is recorded, everything else is worked out at write time. */
interface Pending {
  ts: string;
  space: string;
  type: string;
  actor?: string;
  subject?: string;
  envelope_id?: string;
  details?: unknown;
}

interface Row {
  id: number;
  ts: string;
  space: string;
  type: string;
  actor: string | null;
  subject: string | null;
  envelope_id: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

/**
 * The gateway's durable audit log: append-only, one SQLite file, hash-chained per space (DESIGN.md, "Audit").
 *
 * `record` only queues, so the message path never waits for the disk; a timer or a full batch writes the queue
 * in one transaction, and the hashing happens there too. `flush` and `close` write synchronously, so nothing
 * recorded before a clean shutdown is lost; reads (`query`, `count`, `verify`) flush first and so see every
 * event recorded before them. One `AuditLog` should own a file: other connections may read it.
 *
 * With WAL and `synchronous=NORMAL`, a crash of the process loses nothing committed; a power cut may lose the
 * last transactions, never corrupt the file.
 */
export class AuditLog {
  private queue: Pending[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;
  /** True while waiting out a failed write: no other flush is scheduled until the retry. */
  private retrying = false;
  private closed = false;
  private reportedRecordAfterClose = false;
  /** Events dropped on overflow, by space, until an `AUDIT_EVENTS_DROPPED` event records them. */
  private readonly dropped = new Map<string, number>();
  private readonly options: Required<AuditLogOptions>;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly lastSeq: Database.Statement<[string], { seq: number }>;
  private readonly headOf: Database.Statement<[string], { id: number; hash: string }>;
  private readonly insert: Database.Statement<[Row]>;
  private readonly writeBatch: Database.Transaction<(batch: Pending[]) => void>;

  private constructor(
    private readonly db: Database.Database,
    options: AuditLogOptions,
    /** Whether `close` closes the connection (`open`) or leaves it to whoever attached the log (`attach`). */
    private readonly ownsConnection: boolean,
  ) {
    this.options = {
      flushIntervalMs: options.flushIntervalMs ?? AUDIT_FLUSH_INTERVAL_MS,
      maxBatch: Math.max(1, options.maxBatch ?? AUDIT_MAX_BATCH),
      maxQueue: Math.max(1, options.maxQueue ?? AUDIT_MAX_QUEUE),
      retryIntervalMs: options.retryIntervalMs ?? AUDIT_RETRY_INTERVAL_MS,
      busyTimeoutMs: options.busyTimeoutMs ?? AUDIT_BUSY_TIMEOUT_MS,
      onError: options.onError ?? ((error) => console.error('[audit]', error)),
    };
    this.lastSeq = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`);
    this.headOf = db.prepare(`SELECT id, hash FROM ${AUDIT_TABLE} WHERE space = ? ORDER BY id DESC LIMIT 1`);
    this.insert = db.prepare(
      `INSERT INTO ${AUDIT_TABLE} (id, ts, space, type, actor, subject, envelope_id, details, prev_hash, hash)
       VALUES (@id, @ts, @space, @type, @actor, @subject, @envelope_id, @details, @prev_hash, @hash)`,
    );
    this.writeBatch = db.transaction((batch: Pending[]) => this.writeRows(batch));
  }

  /**
   * Opens (or creates, with its folders) the log at `file`; `:memory:` gives a throwaway log. The file is made
   * readable by its owner only: audit trails name who did what.
   */
  static open(file: string, options: AuditLogOptions = {}): AuditLog {
    const inMemory = file === ':memory:';
    if (!inMemory) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const db = new Database(file, { timeout: options.busyTimeoutMs ?? AUDIT_BUSY_TIMEOUT_MS });
    try {
      // SQLite gives the -wal and -shm files the main file's mode, so this covers them too.
      if (!inMemory) chmodSync(file, 0o600);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      return new AuditLog(prepareSchema(db, file), options, true);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * The log inside a database another owner opened (the gateway's one file): it shares that connection, so
   * `recordNow` inside the owner's transaction commits the audit record with the change it describes. `close`
   * writes what is queued and leaves the connection to its owner.
   */
  static attach(db: Database.Database, options: AuditLogOptions = {}): AuditLog {
    return new AuditLog(prepareSchema(db, db.name), options, false);
  }

  /** Events recorded but not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Queues an event; never throws and never touches the disk (the message path calls it). The time is taken
   * now unless `event.ts` is given. The log owns `event.details` from here on: do not mutate it.
   */
  record(event: AuditRecord): void {
    if (this.closed) {
      if (!this.reportedRecordAfterClose) {
        this.reportedRecordAfterClose = true;
        this.report(new Error(`audit event ${event.type} recorded after close: dropped (further ones silently)`));
      }
      return;
    }
    if (this.queue.length >= this.options.maxQueue) {
      if (this.dropped.size === 0) this.report(new Error(`audit queue full (${this.options.maxQueue}): dropping events`));
      this.dropped.set(event.space, (this.dropped.get(event.space) ?? 0) + 1);
      return;
    }
    this.queue.push({
      ts: event.ts ?? new Date().toISOString(),
      space: event.space,
      type: event.type,
      actor: event.actor,
      subject: event.subject,
      envelope_id: event.envelope_id,
      // Masked as it is written: the hash chain covers what is stored, and no whole secret is (exports, the API).
      details: maskValue(event.details),
    });
    this.schedule();
  }

  /**
   * Writes `event` (after everything queued before it) before returning, for records that must not be lost with
   * an acknowledged change: called inside the caller's transaction on the same connection (`attach`), both
   * commit together or neither does. Throws if the database refuses; `event` is then not kept for a retry (the
   * change it describes is being rolled back), the rest of the queue is.
   */
  recordNow(event: AuditRecord): void {
    if (this.closed) throw new Error(`audit log is closed: ${event.type} cannot be recorded`);
    this.record(event);
    const recorded = this.queue.at(-1);
    try {
      this.flush();
    } catch (error) {
      const index = recorded === undefined ? -1 : this.queue.lastIndexOf(recorded);
      if (index >= 0) this.queue.splice(index, 1);
      throw error;
    }
  }

  /** Writes everything queued, now. Throws if the database refuses; the events then stay queued for a retry. */
  flush(): void {
    if (this.closed) return;
    this.cancelScheduled();
    try {
      while (this.queue.length > 0) this.writeNextBatch();
      this.retrying = false;
    } catch (error) {
      this.retryLater();
      throw error;
    }
  }

  /** Flushes and closes the database. Idempotent. If the final flush fails, the error says how many events were lost. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } catch (error) {
      throw new Error(`audit log closed with ${this.queue.length} unwritten events`, { cause: error });
    } finally {
      this.cancelScheduled();
      this.closed = true;
      this.queue = [];
      if (this.ownsConnection) this.db.close();
    }
  }

  /** Events of one space matching `filter`, oldest first unless `order: 'desc'`. Sees every event recorded before the call. */
  query(filter: AuditQuery): AuditEvent[] {
    this.readyToRead();
    const { where, params } = buildWhere(filter);
    const order = filter.order === 'desc' ? 'DESC' : 'ASC';
    const sql = `SELECT * FROM ${AUDIT_TABLE} WHERE ${where} ORDER BY id ${order} LIMIT ?`;
    const rows = this.statement(sql).all(...params, clampLimit(filter.limit)) as Row[];
    return rows.map(rowToEvent);
  }

  /**
   * Every event matching `filter` (no limit), read a page at a time so no statement stays open between yields
   * and writes can go on meanwhile. For exports.
   */
  *scan(filter: Omit<AuditQuery, 'limit'>): Generator<AuditEvent> {
    let cursor = filter.order === 'desc' ? filter.beforeId : filter.afterId;
    for (;;) {
      const page = this.query({
        ...filter,
        limit: AUDIT_QUERY_MAX_LIMIT,
        ...(filter.order === 'desc' ? { beforeId: cursor } : { afterId: cursor }),
      });
      yield* page;
      if (page.length < AUDIT_QUERY_MAX_LIMIT) return;
      cursor = page[page.length - 1].id;
    }
  }

  /** How many events match `filter`. */
  count(filter: AuditCountQuery): number {
    this.readyToRead();
    const { where, params } = buildWhere(filter);
    const row = this.statement(`SELECT count(*) AS n FROM ${AUDIT_TABLE} WHERE ${where}`).get(...params) as { n: number };
    return row.n;
  }

  /**
   * The newest event of a space, as `{ id, hash }`. Storing it elsewhere (a log line, a backup) lets a later
   * `verify` be complemented by a check that the head is still there: the chain alone cannot show that the
   * newest events were cut off.
   */
  head(space: string): { id: number; hash: string } | undefined {
    this.readyToRead();
    return this.headOf.get(space);
  }

  /**
   * Recomputes the hash chain of one space, or of every space: `brokenAtId` is the first event that was edited,
   * inserted, or follows a deleted one. Reads the whole chain synchronously: an admin action, not a per-request one.
   */
  verify(space?: string): AuditVerifyResult {
    this.readyToRead();
    const sql = `SELECT * FROM ${AUDIT_TABLE}${space === undefined ? '' : ' WHERE space = ?'} ORDER BY id`;
    const statement = this.statement(sql);
    const rows = (space === undefined ? statement.iterate() : statement.iterate(space)) as IterableIterator<Row>;
    let unparseableId: number | undefined;
    const events = (function* () {
      for (const row of rows) {
        let event: AuditEvent;
        try {
          event = rowToEvent(row);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          unparseableId = row.id; // details that no longer parse: edited outside the log
          return;
        }
        yield event;
      }
    })();
    // Leaving the loops early closes the SQLite iterator too, so the connection is free again afterwards.
    const result = verifyAuditChain(events);
    if (!result.ok || unparseableId === undefined) return result;
    return { ok: false, brokenAtId: unparseableId };
  }

  // --- writing ---------------------------------------------------------------------------------------------

  private schedule(): void {
    if (this.retrying || this.immediate) return;
    if (this.queue.length >= this.options.maxBatch) {
      this.immediate = setImmediate(this.tick);
    } else if (!this.timer) {
      this.timer = setTimeout(this.tick, this.options.flushIntervalMs);
    }
  }

  /**
   * A scheduled write: one batch per turn of the event loop, so a backlog is written in slices with I/O
   * in between rather than in one long stall.
   */
  private readonly tick = (): void => {
    this.cancelScheduled();
    if (this.closed || this.queue.length === 0) return;
    try {
      this.writeNextBatch();
      this.retrying = false;
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(String(error)));
      this.retryLater();
      return;
    }
    if (this.queue.length > 0) this.immediate = setImmediate(this.tick);
  };

  private retryLater(): void {
    this.cancelScheduled();
    this.retrying = true;
    this.timer = setTimeout(this.tick, this.options.retryIntervalMs);
  }

  private cancelScheduled(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  /** Writes the oldest batch in one transaction; on failure nothing is written and the batch stays queued. */
  private writeNextBatch(): void {
    const batch = this.queue.slice(0, this.options.maxBatch);
    this.writeBatch.immediate(batch);
    this.queue.splice(0, batch.length);
    this.noteDrops();
  }

  /**
   * Inside the write transaction (BEGIN IMMEDIATE, so no other writer interleaves): ids are assigned here rather
   * than by SQLite because the hash covers the id and a row can't be updated after its insert.
   */
  private writeRows(batch: Pending[]): void {
    let id = this.lastSeq.get(AUDIT_TABLE)?.seq ?? 0;
    const heads = new Map<string, string>();
    for (const item of batch) {
      const space = toWellFormedText(item.space);
      const prev_hash = heads.get(space) ?? this.headOf.get(space)?.hash ?? AUDIT_GENESIS_HASH;
      const { ts, details } = normalise(item);
      const event: Omit<AuditEvent, 'hash'> = {
        id: ++id,
        ts,
        space,
        type: toWellFormedText(item.type),
        actor: item.actor === undefined ? undefined : toWellFormedText(item.actor),
        subject: item.subject === undefined ? undefined : toWellFormedText(item.subject),
        envelope_id: item.envelope_id === undefined ? undefined : toWellFormedText(item.envelope_id),
        details: JSON.parse(details) as Record<string, unknown>, // hash exactly what a reader will parse
        prev_hash,
      };
      const hash = hashAuditEvent(event);
      // Stores exactly what was hashed: the columns are UTF-8, so lone surrogates were made U+FFFD above, not by SQLite.
      this.insert.run({
        ...event,
        actor: event.actor ?? null,
        subject: event.subject ?? null,
        envelope_id: event.envelope_id ?? null,
        details,
        hash,
      });
      heads.set(space, hash);
    }
  }

  /** After a successful write, the overflow gap (if any) is recorded like any other event. */
  private noteDrops(): void {
    if (this.dropped.size === 0 || this.queue.length >= this.options.maxQueue) return;
    for (const [space, count] of this.dropped) {
      this.queue.push({
        ts: new Date().toISOString(),
        space,
        type: 'AUDIT_EVENTS_DROPPED',
        actor: AUDIT_ACTOR_GATEWAY,
        details: { count, reason: 'queue_full' },
      });
    }
    this.dropped.clear();
  }

  // --- reading ---------------------------------------------------------------------------------------------

  private readyToRead(): void {
    if (this.closed) throw new Error('audit log is closed');
    this.flush();
  }

  /** Query shapes are few (one per combination of filters), so each is prepared once. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private report(error: Error): void {
    try {
      this.options.onError(error);
    } catch {
      // A failing error handler must not turn into an exception on the message path.
    }
  }
}

/** Creates the table, indexes and triggers (again on every open: a dropped trigger is put back); refuses a newer schema. */
function prepareSchema(db: Database.Database, file: string): Database.Database {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(`audit log ${file} has schema version ${version}; this gateway knows ${SCHEMA_VERSION}`);
  }
  db.transaction(() => {
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  return db;
}

/** The stored form of a record: canonical UTC time and canonical, redacted JSON details. */
function normalise(item: Pending): { ts: string; details: string } {
  let details: unknown = item.details ?? {};
  if (typeof details !== 'object' || details === null || Array.isArray(details)) details = { value: details };
  let ts = item.ts;
  const time = Date.parse(ts);
  if (Number.isNaN(time)) {
    // A bad time from a caller must not lose the event or break time filters: use now, keep what was given.
    details = { ...(details as object), invalid_ts: String(ts) };
    ts = new Date().toISOString();
  } else {
    ts = new Date(time).toISOString();
  }
  try {
    return { ts, details: canonicalJson(details, { redactKeys: AUDIT_REDACTED_KEYS }) };
  } catch (error) {
    // Cycles or BigInts: keep the event, say why its details are missing.
    return { ts, details: canonicalJson({ unserializable_details: (error as Error).message }) };
  }
}

function buildWhere(filter: AuditCountQuery): { where: string; params: unknown[] } {
  const clauses = ['space = ?'];
  const params: unknown[] = [filter.space];
  const types = filter.type === undefined ? [] : typeof filter.type === 'string' ? [filter.type] : filter.type;
  if (types.length > 0) {
    // One statement shape whatever the number of types.
    clauses.push('type IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(types));
  }
  if (filter.participant !== undefined) {
    clauses.push('(actor = ? OR subject = ?)');
    params.push(filter.participant, filter.participant);
  }
  if (filter.actor !== undefined) {
    clauses.push('actor = ?');
    params.push(filter.actor);
  }
  if (filter.trace !== undefined) {
    clauses.push("json_extract(details, '$.trace_id') = ?");
    params.push(filter.trace);
  }
  if (filter.text !== undefined && filter.text !== '') {
    // instr on lower() rather than LIKE: the text is matched literally, % and _ included.
    clauses.push(
      "instr(lower(type || ' ' || coalesce(actor, '') || ' ' || coalesce(subject, '') || ' ' || coalesce(envelope_id, '') || ' ' || details), ?) > 0",
    );
    params.push(filter.text.toLowerCase());
  }
  if (filter.since !== undefined) {
    clauses.push('ts >= ?');
    params.push(toIso(filter.since, 'since'));
  }
  if (filter.until !== undefined) {
    clauses.push('ts < ?');
    params.push(toIso(filter.until, 'until'));
  }
  if (filter.afterId !== undefined) {
    clauses.push('id > ?');
    params.push(filter.afterId);
  }
  if (filter.beforeId !== undefined) {
    clauses.push('id < ?');
    params.push(filter.beforeId);
  }
  return { where: clauses.join(' AND '), params };
}

/** Stored times are `toISOString()` output, so a normalised bound compares correctly as text. */
function toIso(value: string, name: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new RangeError(`audit query: "${name}" is not a date: ${value}`);
  return new Date(time).toISOString();
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return AUDIT_QUERY_DEFAULT_LIMIT;
  return Math.min(AUDIT_QUERY_MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

function rowToEvent(row: Row): AuditEvent {
  return {
    id: row.id,
    ts: row.ts,
    space: row.space,
    type: row.type,
    ...(row.actor !== null && { actor: row.actor }),
    ...(row.subject !== null && { subject: row.subject }),
    ...(row.envelope_id !== null && { envelope_id: row.envelope_id }),
    details: JSON.parse(row.details) as Record<string, unknown>,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}
