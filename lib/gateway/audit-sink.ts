/** One audit event as the gateway reports it; the audit log adds the id, the time and the hash chain. */
export interface AuditInput {
  space: string;
  type: string;
  /** Who did it: a participant id, `system:gateway`, or `admin`. */
  actor?: string;
  /** Who it was done to. */
  subject?: string;
  envelope_id?: string;
  details: Record<string, unknown>;
}

/** Where the gateway sends audit events. `record` must not block: it is on the message path. */
export interface AuditSink {
  record(event: AuditInput): void;
  /**
   * Writes the event before returning, inside the caller's transaction when there is one: for the record of a
   * security-state change, which must be as durable as the change before anyone is told of it. Throws if it
   * cannot be written.
   */
  recordNow(event: AuditInput): void;
}

/** For gateways run without an audit database (unit tests of unrelated behaviour). */
export const NO_AUDIT: AuditSink = { record() {}, recordNow() {} };
