import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS_HASH, hashAuditEvent, verifyAuditChain } from './audit-chain';
import type { AuditEvent } from '../../protocol';
import { AUDIT_CSV_COLUMNS, fromJsonl, toCsv, toJsonl } from './audit-export';
import { AuditLog } from './audit-log';

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: 1,
    ts: '2026-03-01T10:00:00.000Z',
    space: 's1',
    type: 'PROPOSAL_REJECTED',
    actor: 'alice',
    subject: 'agent',
    envelope_id: 'env-1',
    details: { proposal_id: 'p-1' },
    prev_hash: AUDIT_GENESIS_HASH,
    hash: 'h1',
    ...overrides,
  };
}

/** A strict RFC 4180 reader, to check that what toCsv writes reads back cell for cell. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (cell += '"'), (i += 2);
        else if (text[i] === '"') break;
        else cell += text[i++];
      }
      i++;
    } else if (text[i] === ',') {
      row.push(cell), (cell = ''), i++;
    } else if (text.startsWith('\r\n', i)) {
      row.push(cell), rows.push(row), (row = []), (cell = ''), (i += 2);
    } else {
      expect(text[i]).not.toMatch(/["\r\n]/); // a bare quote, CR or LF would be malformed
      cell += text[i++];
    }
  }
  expect(row).toEqual([]); // the last record ends with CRLF
  return rows;
}

describe('toJsonl', () => {
  it('writes one complete event per line, newlines inside values escaped', () => {
    const events = [event(), event({ id: 2, details: { reason: 'line one\nline two\r\n' }, actor: undefined })];
    const text = toJsonl(events);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0])).toEqual(events[0]);
    expect(JSON.parse(lines[1])).toEqual({ ...events[1], actor: undefined });
    expect(fromJsonl(text)).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it('is empty for no events', () => {
    expect(toJsonl([])).toBe('');
  });

  it('round-trips a real log so that the export verifies offline, and a doctored export does not', () => {
    const log = AuditLog.open(':memory:');
    log.record({ space: 's1', type: 'ACCESS_GRANTED', actor: 'alice', subject: 'bob', details: { capabilities: [{ kind: 'mcp/*' }] } });
    log.record({ space: 's2', type: 'PARTICIPANT_JOINED', actor: 'carol' });
    log.record({ space: 's1', type: 'ACCESS_REVOKED', actor: 'alice', subject: 'bob', details: { removed: [{ kind: 'mcp/*' }] } });
    const text = toJsonl(log.scan({ space: 's1' }));
    log.close();
    expect(verifyAuditChain(fromJsonl(text))).toEqual({ ok: true });
    const doctored = fromJsonl(text);
    doctored[0].subject = 'mallory';
    expect(verifyAuditChain(doctored)).toEqual({ ok: false, brokenAtId: 1 });
    expect(verifyAuditChain(fromJsonl(text).slice(1))).toEqual({ ok: false, brokenAtId: 3 });
    expect(verifyAuditChain(fromJsonl(text).slice(1), { fromGenesis: false })).toEqual({ ok: true });
  });
});

describe('toCsv', () => {
  it('starts with the header row and ends every record with CRLF', () => {
    expect(toCsv([])).toBe('id,ts,space,type,actor,subject,envelope_id,details,hash\r\n');
    expect(AUDIT_CSV_COLUMNS).toHaveLength(9);
  });

  it('writes plain values bare, absent ones empty, and details as one JSON cell', () => {
    const csv = toCsv([event({ subject: undefined, envelope_id: undefined })]);
    expect(csv.split('\r\n')[1]).toBe('1,2026-03-01T10:00:00.000Z,s1,PROPOSAL_REJECTED,alice,,,"{""proposal_id"":""p-1""}",h1');
  });

  it('quotes cells with commas, quotes, CR or LF and doubles quotes (RFC 4180), reading back intact', () => {
    const tricky = { reason: 'no, "never"\r\nnot\rever\n', emoji: '✓' };
    const csv = toCsv([event({ actor: 'a,b', subject: 'say "hi"', envelope_id: 'x\ny', details: tricky })]);
    const [header, row] = parseCsv(csv);
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(row[4]).toBe('a,b');
    expect(row[5]).toBe('say "hi"');
    expect(row[6]).toBe('x\ny');
    expect(JSON.parse(row[7])).toEqual(tricky);
    expect(csv).toContain('"say ""hi"""');
  });

  it('defuses spreadsheet formulas: cells starting with = + - @ tab or CR get a leading quote', () => {
    const csv = toCsv([
      event({ actor: '=HYPERLINK("http://evil","x")' }),
      event({ actor: '+cmd|/C calc!A0' }),
      event({ actor: '-2+3' }),
      event({ actor: '@SUM(A1)' }),
      event({ actor: '\t=1' }),
      event({ actor: '\r=1' }),
      event({ actor: 'alice=bob' }),
    ]);
    const actors = parseCsv(csv)
      .slice(1)
      .map((row) => row[4]);
    expect(actors).toEqual(['\'=HYPERLINK("http://evil","x")', "'+cmd|/C calc!A0", "'-2+3", "'@SUM(A1)", "'\t=1", "'\r=1", 'alice=bob']);
    // No cell of any record begins with a trigger once unquoted.
    for (const row of parseCsv(csv).slice(1)) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe('hash chain', () => {
  it('hashes absent optional fields differently from present ones and covers the id', () => {
    const base = { id: 1, ts: 't', space: 's', type: 'X', details: {}, prev_hash: AUDIT_GENESIS_HASH };
    const h = hashAuditEvent(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashAuditEvent({ ...base, actor: '' })).not.toBe(h);
    expect(hashAuditEvent({ ...base, id: 2 })).not.toBe(h);
    expect(hashAuditEvent({ ...base, details: {} })).toBe(h);
  });
});
