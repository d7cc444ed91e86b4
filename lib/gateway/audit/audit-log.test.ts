import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_GENESIS_HASH, hashAuditEvent } from './audit-chain';
import type { AuditRecord } from './audit-event';
import {
  AUDIT_FLUSH_INTERVAL_MS,
  AUDIT_MAX_BATCH,
  AUDIT_QUERY_DEFAULT_LIMIT,
  AUDIT_QUERY_MAX_LIMIT,
  AUDIT_TABLE,
  AuditLog,
  type AuditLogOptions,
} from './audit-log';

let dir: string;
let file: string;
const opened: Array<AuditLog | Database.Database> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mew-audit-'));
  file = join(dir, 'nested', 'audit.db');
});

afterEach(() => {
  vi.useRealTimers();
  for (const handle of opened.splice(0)) {
    try {
      handle.close();
    } catch {
      // already closed or failed on purpose
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function openLog(options: AuditLogOptions = {}): AuditLog {
  const log = AuditLog.open(file, { onError: () => {}, ...options });
  opened.push(log);
  return log;
}

/** A second connection, as another process (or an attacker with file access) would have. */
function openRaw(readonly = false): Database.Database {
  const db = new Database(file, { readonly });
  opened.push(db);
  return db;
}

function storedCount(): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${AUDIT_TABLE}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const ev = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({ space: 's1', type: 'PARTICIPANT_JOINED', actor: 'alice', ...overrides });

describe('AuditLog: open', () => {
  it('creates missing folders, a file readable by its owner only, in WAL mode', () => {
    openLog();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = openRaw(true);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const indexes = (raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all(AUDIT_TABLE) as { name: string }[]).map(
      (r) => r.name,
    );
    expect(indexes).toEqual(
      expect.arrayContaining([
        `${AUDIT_TABLE}_space_id`,
        `${AUDIT_TABLE}_space_type`,
        `${AUDIT_TABLE}_space_actor`,
        `${AUDIT_TABLE}_space_subject`,
        `${AUDIT_TABLE}_ts`,
      ]),
    );
  });

  it('refuses a file written by a newer schema version', () => {
    const raw = new Database(join(dir, 'future.db'));
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => AuditLog.open(join(dir, 'future.db'))).toThrow(/schema version 99/);
  });

  it('works in memory', () => {
    const log = AuditLog.open(':memory:');
    log.record(ev());
    expect(log.query({ space: 's1' })).toHaveLength(1);
    log.close();
  });
});

describe('AuditLog: record and query', () => {
  it('stores every field, defaults ts to the time of record, and omits absent optional fields', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T10:00:00.000Z'));
    const log = openLog();
    log.record({
      space: 's1',
      type: 'ACCESS_GRANTED',
      actor: 'alice',
      subject: 'bob',
      envelope_id: 'env-1',
      details: { capabilities: [{ kind: 'chat' }], reason: 'helps' },
    });
    log.record({ space: 's1', type: 'PARTICIPANT_LEFT', actor: 'bob' });
    const [grant, left] = log.query({ space: 's1' });
    expect(grant).toEqual({
      id: 1,
      ts: '2026-03-01T10:00:00.000Z',
      space: 's1',
      type: 'ACCESS_GRANTED',
      actor: 'alice',
      subject: 'bob',
      envelope_id: 'env-1',
      details: { capabilities: [{ kind: 'chat' }], reason: 'helps' },
      prev_hash: AUDIT_GENESIS_HASH,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(left).toEqual({
      id: 2,
      ts: '2026-03-01T10:00:00.000Z',
      space: 's1',
      type: 'PARTICIPANT_LEFT',
      actor: 'bob',
      details: {},
      prev_hash: grant.hash,
      hash: expect.any(String),
    });
  });

  it('normalises a given ts to UTC ISO, and keeps an unparseable one in details rather than losing the event', () => {
    const log = openLog();
    log.record(ev({ ts: '2026-03-01T12:00:00+02:00' }));
    log.record(ev({ ts: 'yesterday-ish' }));
    const [a, b] = log.query({ space: 's1' });
    expect(a.ts).toBe('2026-03-01T10:00:00.000Z');
    expect(b.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(b.details).toEqual({ invalid_ts: 'yesterday-ish' });
  });

  it('filters by one type or several', () => {
    const log = openLog();
    log.record(ev({ type: 'PARTICIPANT_JOINED' }));
    log.record(ev({ type: 'ACCESS_GRANTED' }));
    log.record(ev({ type: 'ACCESS_REVOKED' }));
    expect(log.query({ space: 's1', type: 'ACCESS_GRANTED' }).map((e) => e.type)).toEqual(['ACCESS_GRANTED']);
    expect(log.query({ space: 's1', type: ['ACCESS_GRANTED', 'ACCESS_REVOKED'] }).map((e) => e.type)).toEqual(['ACCESS_GRANTED', 'ACCESS_REVOKED']);
    expect(log.query({ space: 's1', type: [] })).toHaveLength(3);
    expect(log.count({ space: 's1', type: ['ACCESS_GRANTED', 'ACCESS_REVOKED'] })).toBe(2);
  });

  it('filters by actor, by a proposal’s trace id, and by text anywhere in the event (literally, any case)', () => {
    const log = openLog();
    log.record(ev({ type: 'PROPOSAL_CREATED', actor: 'agent', details: { trace_id: 'p1', tool: 'write_file' } }));
    log.record(ev({ type: 'PROPOSAL_FULFILLED', actor: 'human', subject: 'agent', details: { trace_id: 'p1' } }));
    log.record(ev({ type: 'PROPOSAL_CREATED', actor: 'agent', details: { trace_id: 'p2', tool: 'Delete_File', note: '100%_done' } }));
    expect(log.query({ space: 's1', actor: 'agent' }).map((e) => e.details.trace_id)).toEqual(['p1', 'p2']);
    expect(log.query({ space: 's1', trace: 'p1' }).map((e) => e.type)).toEqual(['PROPOSAL_CREATED', 'PROPOSAL_FULFILLED']);
    expect(log.query({ space: 's1', text: 'delete_file' }).map((e) => e.details.trace_id)).toEqual(['p2']);
    expect(log.query({ space: 's1', text: '%_' })).toHaveLength(1);
    expect(log.count({ space: 's1', text: 'fulfilled' })).toBe(1);
  });

  it('matches a participant as actor or as subject', () => {
    const log = openLog();
    log.record(ev({ type: 'ACCESS_GRANTED', actor: 'alice', subject: 'bob' }));
    log.record(ev({ type: 'PARTICIPANT_KICKED', actor: 'bob', subject: 'carol' }));
    log.record(ev({ type: 'PARTICIPANT_JOINED', actor: 'dave' }));
    expect(log.query({ space: 's1', participant: 'bob' }).map((e) => e.type)).toEqual(['ACCESS_GRANTED', 'PARTICIPANT_KICKED']);
    expect(log.query({ space: 's1', participant: 'carol' }).map((e) => e.type)).toEqual(['PARTICIPANT_KICKED']);
    expect(log.query({ space: 's1', participant: 'bob', type: 'PARTICIPANT_KICKED' })).toHaveLength(1);
  });

  it('filters by time with since (inclusive) and until (exclusive), any offset, and refuses a non-date', () => {
    const log = openLog();
    for (const ts of ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z']) log.record(ev({ ts }));
    expect(log.query({ space: 's1', since: '2026-01-02T00:00:00.000Z' }).map((e) => e.id)).toEqual([2, 3]);
    expect(log.query({ space: 's1', since: '2026-01-02T01:00:00+01:00' }).map((e) => e.id)).toEqual([2, 3]);
    expect(log.query({ space: 's1', since: '2026-01-02T00:00:00.000Z', until: '2026-01-03T00:00:00.000Z' }).map((e) => e.id)).toEqual([2]);
    expect(() => log.query({ space: 's1', since: 'not a date' })).toThrow(RangeError);
  });

  it('limits to 100 by default and 1000 at most, and pages with afterId (oldest first) or beforeId (newest first)', () => {
    const log = openLog();
    for (let i = 0; i < 1200; i++) log.record(ev({ details: { i } }));
    expect(log.query({ space: 's1' })).toHaveLength(AUDIT_QUERY_DEFAULT_LIMIT);
    expect(log.query({ space: 's1', limit: 5000 })).toHaveLength(AUDIT_QUERY_MAX_LIMIT);
    expect(log.query({ space: 's1', limit: 0 })).toHaveLength(1);
    const page1 = log.query({ space: 's1', limit: 3 });
    expect(page1.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(log.query({ space: 's1', limit: 3, afterId: page1[2].id }).map((e) => e.id)).toEqual([4, 5, 6]);
    const newest = log.query({ space: 's1', limit: 2, order: 'desc' });
    expect(newest.map((e) => e.id)).toEqual([1200, 1199]);
    expect(log.query({ space: 's1', limit: 2, order: 'desc', beforeId: 1199 }).map((e) => e.id)).toEqual([1198, 1197]);
    expect([...log.scan({ space: 's1', afterId: 10 })].map((e) => e.id)).toEqual(Array.from({ length: 1190 }, (_, i) => i + 11));
    expect(log.count({ space: 's1', afterId: 1000 })).toBe(200);
  });

  it('keeps spaces apart, each with its own hash chain', () => {
    const log = openLog();
    log.record(ev({ space: 'a' }));
    log.record(ev({ space: 'b' }));
    log.record(ev({ space: 'a' }));
    const a = log.query({ space: 'a' });
    const b = log.query({ space: 'b' });
    expect(a.map((e) => e.id)).toEqual([1, 3]);
    expect(b.map((e) => e.id)).toEqual([2]);
    expect(a[0].prev_hash).toBe(AUDIT_GENESIS_HASH);
    expect(b[0].prev_hash).toBe(AUDIT_GENESIS_HASH);
    expect(a[1].prev_hash).toBe(a[0].hash);
    expect(log.head('a')).toEqual({ id: 3, hash: a[1].hash });
    expect(log.head('nobody')).toBeUndefined();
  });

  it('never stores secrets in details, at any depth', () => {
    const log = openLog();
    log.record(
      ev({
        type: 'PARTICIPANT_INVITED',
        details: { token: 'secret-token-q7', nested: { Authorization: 'Bearer secret-bearer-q8', keep: 1 }, capabilities: [] },
      }),
    );
    const [event] = log.query({ space: 's1' });
    expect(event.details).toEqual({ token: '[redacted]', nested: { Authorization: '[redacted]', keep: 1 }, capabilities: [] });
    // Distinctive values: short ones like "abc" can occur by chance inside the hex hashes of the row.
    expect(JSON.stringify(openRaw(true).prepare(`SELECT * FROM ${AUDIT_TABLE}`).all())).not.toMatch(/secret-token-q7|secret-bearer-q8/);
  });

  it('keeps an event whose details cannot be serialised, without failing the rest of its batch', () => {
    const log = openLog();
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    log.record(ev({ details: circular }));
    log.record(ev({ details: { fine: true } }));
    const [bad, good] = log.query({ space: 's1' });
    expect(bad.details).toEqual({ unserializable_details: expect.stringMatching(/circular/) });
    expect(good.details).toEqual({ fine: true });
    expect(log.verify()).toEqual({ ok: true });
  });
});

describe('AuditLog: batching', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] }));

  it('does not write on record; writes after the flush interval, in one go', () => {
    const log = openLog();
    log.record(ev());
    log.record(ev());
    expect(log.pending).toBe(2);
    expect(storedCount()).toBe(0);
    vi.advanceTimersByTime(AUDIT_FLUSH_INTERVAL_MS - 1);
    expect(storedCount()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(storedCount()).toBe(2);
    expect(log.pending).toBe(0);
  });

  it('writes at once on flush()', () => {
    const log = openLog();
    log.record(ev());
    log.flush();
    expect(storedCount()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('writes a full batch on the next turn, without waiting for the interval', () => {
    const log = openLog();
    for (let i = 0; i < AUDIT_MAX_BATCH - 1; i++) log.record(ev());
    vi.advanceTimersByTime(0);
    expect(storedCount()).toBe(0);
    log.record(ev());
    expect(storedCount()).toBe(0); // still not inside record()
    vi.advanceTimersByTime(0);
    expect(storedCount()).toBe(AUDIT_MAX_BATCH);
  });

  it('keeps a failed batch queued, reports it, and writes it on retry', () => {
    const errors: Error[] = [];
    const log = openLog({ onError: (e) => errors.push(e), busyTimeoutMs: 0, retryIntervalMs: 1000 });
    const locker = openRaw();
    locker.exec('BEGIN IMMEDIATE'); // another writer holds the lock
    log.record(ev());
    vi.advanceTimersByTime(AUDIT_FLUSH_INTERVAL_MS);
    expect(errors).toHaveLength(1);
    expect(log.pending).toBe(1);
    expect(() => log.flush()).toThrow(/locked|busy/i);
    locker.exec('COMMIT');
    vi.advanceTimersByTime(1000);
    expect(log.pending).toBe(0);
    expect(storedCount()).toBe(1);
  });

  it('bounds memory: beyond maxQueue events are dropped, and the gap is recorded once writing resumes', () => {
    const errors: Error[] = [];
    const log = openLog({ maxQueue: 3, onError: (e) => errors.push(e) });
    for (let i = 0; i < 5; i++) log.record(ev({ details: { i } }));
    expect(log.pending).toBe(3);
    expect(errors).toHaveLength(1); // reported once, not per event
    log.flush();
    const events = log.query({ space: 's1' });
    expect(events.map((e) => e.type)).toEqual(['PARTICIPANT_JOINED', 'PARTICIPANT_JOINED', 'PARTICIPANT_JOINED', 'AUDIT_EVENTS_DROPPED']);
    expect(events[3]).toMatchObject({ actor: 'system:gateway', details: { count: 2, reason: 'queue_full' } });
  });

  it('does not block the caller: 10k records return before anything is written, then drain a batch per turn', async () => {
    vi.useRealTimers();
    const log = openLog();
    for (let i = 0; i < 10_000; i++) log.record(ev({ details: { i } }));
    expect(log.pending).toBe(10_000);
    expect(storedCount()).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(storedCount()).toBe(AUDIT_MAX_BATCH); // one slice, then the event loop gets a turn
    await vi.waitFor(() => expect(storedCount()).toBe(10_000), { timeout: 10_000, interval: 20 });
    expect(log.verify('s1')).toEqual({ ok: true });
  });
});

describe('AuditLog: durability', () => {
  it('recordNow writes before returning, and inside a transaction of the shared connection commits or rolls back with it', () => {
    mkdirSync(dirname(file), { recursive: true });
    const db = openRaw();
    const log = AuditLog.attach(db, { onError: () => {} });
    opened.push(log);
    log.record(ev({ actor: 'queued-before' }));
    log.recordNow(ev({ actor: 'now' }));
    expect(storedCount()).toBe(2); // what was queued first, then the event itself
    expect(() =>
      db.transaction(() => {
        log.recordNow(ev({ actor: 'rolled-back' }));
        throw new Error('the change fails after its audit record');
      })(),
    ).toThrow('the change fails');
    log.flush();
    expect(log.query({ space: 's1' }).map((e) => e.actor)).toEqual(['queued-before', 'now']);
    log.close();
    expect(db.open).toBe(true); // the connection stays its owner's
  });

  it('loses nothing across close() and reopen, and the chain continues', () => {
    const log = openLog();
    for (let i = 0; i < 7; i++) log.record(ev({ details: { i } }));
    log.close();
    log.close(); // idempotent
    expect(storedCount()).toBe(7);

    const again = openLog();
    again.record(ev({ details: { i: 7 } }));
    const events = again.query({ space: 's1' });
    expect(events.map((e) => e.details.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(events[7].id).toBe(8);
    expect(events[7].prev_hash).toBe(events[6].hash);
    expect(again.verify()).toEqual({ ok: true });
  });

  it('after close, record is a reported no-op and reads throw', () => {
    const errors: Error[] = [];
    const log = openLog({ onError: (e) => errors.push(e) });
    log.close();
    expect(() => log.record(ev())).not.toThrow();
    log.record(ev());
    expect(errors).toHaveLength(1);
    expect(() => log.query({ space: 's1' })).toThrow(/closed/);
  });
});

describe('AuditLog: append-only and tamper evidence', () => {
  function seed(): AuditLog {
    const log = openLog();
    log.record(ev({ type: 'ACCESS_GRANTED', actor: 'alice', subject: 'bob', details: { capabilities: [{ kind: 'chat' }] } }));
    log.record(ev({ type: 'ACCESS_REVOKED', actor: 'alice', subject: 'bob', details: { removed: [{ kind: 'chat' }] } }));
    log.record(ev({ type: 'PARTICIPANT_KICKED', actor: 'alice', subject: 'bob' }));
    log.record(ev({ space: 'other', type: 'PARTICIPANT_JOINED', actor: 'zed' }));
    log.flush();
    return log;
  }

  it('refuses UPDATE and DELETE, even through direct SQL', () => {
    seed();
    const raw = openRaw();
    expect(() => raw.prepare(`UPDATE ${AUDIT_TABLE} SET actor = 'mallory' WHERE id = 1`).run()).toThrow(/append-only/);
    expect(() => raw.prepare(`DELETE FROM ${AUDIT_TABLE} WHERE id = 1`).run()).toThrow(/append-only/);
    expect(storedCount()).toBe(4);
  });

  it('stores exactly what it hashed: fields with lone surrogates read back as hashed, and the chain verifies', () => {
    const log = openLog();
    log.record(ev({ actor: 'mallory\ud800', envelope_id: '\udc00x', subject: 'bob', details: { id: '\ud800' } }));
    log.record(ev({ actor: 'alice' }));
    const [first] = log.query({ space: 's1' });
    expect(first).toMatchObject({ actor: 'mallory\ufffd', envelope_id: '\ufffdx', details: { id: '\ud800' } });
    log.close();
    // Read back by another connection, from the bytes on disk.
    expect(openLog().verify()).toEqual({ ok: true });
  });

  it('verifies an untouched log', () => {
    const log = seed();
    expect(log.verify()).toEqual({ ok: true });
    expect(log.verify('s1')).toEqual({ ok: true });
  });

  it('detects an edited row', () => {
    const log = seed();
    const raw = openRaw();
    raw.exec(`DROP TRIGGER ${AUDIT_TABLE}_no_update`);
    raw.prepare(`UPDATE ${AUDIT_TABLE} SET details = ? WHERE id = 2`).run('{"removed":[]}');
    expect(log.verify()).toEqual({ ok: false, brokenAtId: 2 });
    expect(log.verify('s1')).toEqual({ ok: false, brokenAtId: 2 });
    expect(log.verify('other')).toEqual({ ok: true });
  });

  it('detects an edited row whose hash was recomputed, at the next row of the space', () => {
    const log = seed();
    const [, second] = log.query({ space: 's1' });
    const raw = openRaw();
    raw.exec(`DROP TRIGGER ${AUDIT_TABLE}_no_update`);
    const forged = { ...second, actor: 'mallory' };
    // The attacker knows the algorithm: the row itself verifies, the link from row 3 does not.
    raw.prepare(`UPDATE ${AUDIT_TABLE} SET actor = 'mallory', hash = ? WHERE id = 2`).run(hashAuditEvent(forged));
    expect(log.verify('s1')).toEqual({ ok: false, brokenAtId: 3 });
  });

  it('detects a deleted row', () => {
    const log = seed();
    const raw = openRaw();
    raw.exec(`DROP TRIGGER ${AUDIT_TABLE}_no_delete`);
    raw.prepare(`DELETE FROM ${AUDIT_TABLE} WHERE id = 1`).run();
    expect(log.verify('s1')).toEqual({ ok: false, brokenAtId: 2 });
  });

  it('puts dropped triggers back when the log is opened again', () => {
    seed().close();
    openRaw().exec(`DROP TRIGGER ${AUDIT_TABLE}_no_delete`);
    openLog();
    expect(() => openRaw().prepare(`DELETE FROM ${AUDIT_TABLE}`).run()).toThrow(/append-only/);
  });

  it('leaves the connection usable after verify stops early', () => {
    const log = seed();
    const raw = openRaw();
    raw.exec(`DROP TRIGGER ${AUDIT_TABLE}_no_update`);
    raw.prepare(`UPDATE ${AUDIT_TABLE} SET type = 'X' WHERE id = 1`).run();
    expect(log.verify()).toEqual({ ok: false, brokenAtId: 1 });
    log.record(ev());
    expect(() => log.flush()).not.toThrow();
  });
});
