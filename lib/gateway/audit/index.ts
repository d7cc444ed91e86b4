// The event types and the stored event's shape are wire types: `lib/protocol` (audit-events.ts).
export { violationEventType, type AuditRecord } from './audit-event';
export {
  AUDIT_GENESIS_HASH,
  hashAuditEvent,
  verifyAuditChain,
  type AuditVerifyResult,
  type VerifyChainOptions,
} from './audit-chain';
export {
  AUDIT_BUSY_TIMEOUT_MS,
  AUDIT_FLUSH_INTERVAL_MS,
  AUDIT_MAX_BATCH,
  AUDIT_MAX_QUEUE,
  AUDIT_QUERY_DEFAULT_LIMIT,
  AUDIT_QUERY_MAX_LIMIT,
  AUDIT_REDACTED_KEYS,
  AUDIT_RETRY_INTERVAL_MS,
  AUDIT_TABLE,
  AuditLog,
  type AuditCountQuery,
  type AuditLogOptions,
  type AuditQuery,
} from './audit-log';
export { AUDIT_CSV_COLUMNS, AUDIT_EXPORT_CONTENT_TYPES, fromJsonl, toCsv, toJsonl } from './audit-export';
export { canonicalJson, REDACTED, type CanonicalJsonOptions } from './canonical-json';
