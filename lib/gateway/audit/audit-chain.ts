import { createHash } from 'node:crypto';
import type { AuditEvent } from '../../protocol';
import { canonicalJson } from './canonical-json';

/** `prev_hash` of the first event of every space. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** Result of checking a hash chain: the id of the first event that does not fit, if any. */
export type AuditVerifyResult = { ok: true } | { ok: false; brokenAtId: number };

/**
 * `sha256(prev_hash + canonicalJson(event without hash))`, hex. Absent optional fields hash as `null`, so adding
 * or removing an actor, subject or envelope id changes the hash; the id is included, so renumbering does too.
 */
export function hashAuditEvent(event: Omit<AuditEvent, 'hash'>): string {
  const body = canonicalJson({
    id: event.id,
    ts: event.ts,
    space: event.space,
    type: event.type,
    actor: event.actor ?? null,
    subject: event.subject ?? null,
    envelope_id: event.envelope_id ?? null,
    details: event.details,
    prev_hash: event.prev_hash,
  });
  return createHash('sha256').update(event.prev_hash).update(body).digest('hex');
}

export interface VerifyChainOptions {
  /**
   * When false, the first event seen of each space may start from any `prev_hash`: for checking an export
   * that begins mid-chain (e.g. a `since` query). @default true
   */
  fromGenesis?: boolean;
}

/**
 * Checks events in id order: each must hash to its `hash`, and link to the previous event of its space.
 * Works on the database (`AuditLog.verify`) and on exported JSONL alike. Editing, inserting, reordering or
 * deleting an event breaks the chain at or after it; deleting the newest events of a space does not, which is
 * why `AuditLog.head` exists (anchor the head hash somewhere else to detect truncation).
 */
export function verifyAuditChain(events: Iterable<AuditEvent>, options: VerifyChainOptions = {}): AuditVerifyResult {
  const fromGenesis = options.fromGenesis ?? true;
  const heads = new Map<string, string>();
  let lastId = -Infinity;
  for (const event of events) {
    const expectedPrev = heads.get(event.space) ?? (fromGenesis ? AUDIT_GENESIS_HASH : event.prev_hash);
    if (event.id <= lastId || event.prev_hash !== expectedPrev || hashAuditEvent(event) !== event.hash) {
      return { ok: false, brokenAtId: event.id };
    }
    lastId = event.id;
    heads.set(event.space, event.hash);
  }
  return { ok: true };
}
