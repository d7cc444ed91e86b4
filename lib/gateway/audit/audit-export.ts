import type { AuditEvent } from '../../protocol';

/** CSV columns, in order (the header row). `prev_hash` is left out: within a space it is the previous row's `hash`. */
export const AUDIT_CSV_COLUMNS = ['id', 'ts', 'space', 'type', 'actor', 'subject', 'envelope_id', 'details', 'hash'] as const;

/** `Content-Type` of each export format, for the route that serves it. */
export const AUDIT_EXPORT_CONTENT_TYPES = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
} as const;

/**
 * Spreadsheet apps treat a cell starting with one of these as a formula (`=HYPERLINK(...)`, `@SUM(...)`,
 * `+cmd|...`; tab and CR are on OWASP's list because some apps skip them before parsing). Participant ids,
 * tool names and reasons are chosen by participants, so an exported audit log opened in Excel could otherwise
 * run what an attacker wrote.
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * One JSON object per line, `\n`-terminated: the lossless export (every field, `prev_hash` included, so
 * `verifyAuditChain` can check it offline). JSON escapes newlines inside strings, so a line is always one event.
 */
export function toJsonl(events: Iterable<AuditEvent>): string {
  let out = '';
  for (const event of events) out += `${JSON.stringify(event)}\n`;
  return out;
}

/** Reads {@link toJsonl} output back (blank lines are skipped), e.g. to verify an export. */
export function fromJsonl(text: string): AuditEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent);
}

/**
 * RFC 4180 CSV with a header row and CRLF line ends, for people (spreadsheets); `details` is one JSON text column.
 * Cells that a spreadsheet would run as a formula get a leading `'` (OWASP "CSV injection"), which means such a
 * value (e.g. a reason "-1") reads back with the quote: machine consumers should use {@link toJsonl}.
 */
export function toCsv(events: Iterable<AuditEvent>): string {
  const lines = [AUDIT_CSV_COLUMNS.join(',')];
  for (const event of events) {
    lines.push(
      [
        String(event.id),
        csvCell(event.ts),
        csvCell(event.space),
        csvCell(event.type),
        csvCell(event.actor),
        csvCell(event.subject),
        csvCell(event.envelope_id),
        csvCell(JSON.stringify(event.details)),
        csvCell(event.hash),
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A text cell: formula-guarded, then quoted (quotes doubled) if it holds a comma, quote, CR or LF. */
function csvCell(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  const safe = FORMULA_TRIGGERS.has(value[0]) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
