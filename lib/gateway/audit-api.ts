import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditPage, AuditVerification } from '../protocol';
import { AUDIT_EXPORT_CONTENT_TYPES, toCsv, toJsonl, type AuditLog, type AuditQuery } from './audit';
import { createSecretRevealRoute } from './audit-reveal-api';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { requireOperator } from './http-caller';
import { decodePathSegment, sendJson } from './http-util';

const AUDIT_PATH = /^\/api\/spaces\/([^/]+)\/audit(?:\/(export|verify))?$/;

/**
 * `GET /api/spaces/{space}/audit?since=&until=&type=&participant=&actor=&trace=&q=&limit=&after_id=&order=` (JSON, one page),
 * `GET /api/spaces/{space}/audit/export?format=jsonl|csv` (every matching event, as a download) and
 * `GET /api/spaces/{space}/audit/verify` (the space's hash chain recomputed: `{ok, checked, broken_at?, head?}`,
 * where `head` is the newest event's id and hash, worth keeping elsewhere to notice a truncated log). Readable with
 * the space's admin token, or by an operator: a participant holding unrestricted `capability/grant`, since
 * whoever can hand out capabilities must be able to see what was done with them. `POST …/audit/reveal` records an
 * operator's reveal of a masked secret (audit-reveal-api.ts).
 */
export function createAuditRoute(gateway: Gateway, log: AuditLog) {
  const reveal = createSecretRevealRoute(gateway, log);
  return async function handleAudit(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = AUDIT_PATH.exec(url.pathname);
    if (!match) return reveal(req, res, url);
    if (req.method !== 'GET') throw new GatewayError('method_not_allowed', 'use GET');
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
    requireOperator(gateway, space, req, 'the audit log');
    if (match[2] === 'verify') {
      const result = log.verify(space.id);
      const head = log.head(space.id);
      const checked = result.ok ? log.count({ space: space.id }) : log.count({ space: space.id, beforeId: result.brokenAtId });
      const verification: AuditVerification = { ok: result.ok, checked, ...(!result.ok && { broken_at: result.brokenAtId }), ...(head && { head }) };
      sendJson(res, 200, verification);
      return true;
    }
    const q = url.searchParams;
    const filter: AuditQuery = {
      space: space.id,
      type: q
        .getAll('type')
        .flatMap((t) => t.split(','))
        .filter(Boolean),
      participant: q.get('participant') || undefined,
      actor: q.get('actor') || undefined,
      trace: q.get('trace') || undefined,
      text: q.get('q') || undefined,
      since: validTime(q.get('since'), 'since'),
      until: validTime(q.get('until'), 'until'),
      afterId: q.has('after_id') ? Number(q.get('after_id')) : undefined,
      order: q.get('order') === 'desc' ? 'desc' : 'asc',
    };
    if (!match[2]) {
      const limit = q.has('limit') ? Number(q.get('limit')) : undefined;
      const page: AuditPage = { events: log.query({ ...filter, limit }) };
      sendJson(res, 200, page);
      return true;
    }
    const format = q.get('format') ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'csv') throw new GatewayError('invalid_envelope', `format must be jsonl or csv, not ${format}`);
    const events = [...log.scan(filter)];
    res.writeHead(200, {
      'Content-Type': AUDIT_EXPORT_CONTENT_TYPES[format],
      'Content-Disposition': `attachment; filename="audit-${space.id}.${format}"`,
      'Cache-Control': 'no-store',
    });
    res.end(format === 'csv' ? toCsv(events) : toJsonl(events));
    return true;
  };
}

function validTime(value: string | null, name: string): string | undefined {
  if (value === null) return undefined;
  if (Number.isNaN(Date.parse(value))) throw new GatewayError('invalid_envelope', `"${name}" is not an ISO timestamp: ${value}`);
  return value;
}
