import type { AuditLog } from '../gateway/audit';
import type { AuditInput, AuditSink } from '../gateway/audit-sink';
import { clusterKeys } from './cluster-keys';
import type { FencedWriter } from './fenced-writer';

/** The field of the space's meta hash that counts its audit events (see `clusterKeys.meta`). */
export const AUDIT_COUNT_FIELD = 'audit';

/**
 * Audit events of an owned space, appended to the space's audit stream in the owner's fenced writes, and to the
 * owner's own audit log (rebuilt from the stream at each takeover) that its audit API reads. `recordNow` keeps its
 * promise: the event is written in the same atomic batch as the change it records (appended in the same turn,
 * before anything that tells a client), so both survive an owner's crash or neither does. The count of events
 * goes in the same batch, so the next owner can tell a stream that lost events from one that never had them.
 */
export class ClusterAuditSink implements AuditSink {
  constructor(
    private readonly writer: FencedWriter,
    private readonly mirror: AuditLog,
    /** How many events the space's audit stream held at takeover. */
    private count: number,
  ) {}

  record(event: AuditInput): void {
    const stamped = { ...event, ts: new Date().toISOString() };
    this.writer.append(clusterKeys.audit(event.space), 0, ['e', JSON.stringify(stamped)]);
    this.writer.set(clusterKeys.meta(event.space), AUDIT_COUNT_FIELD, String(++this.count));
    this.mirror.record(stamped);
  }

  recordNow(event: AuditInput): void {
    this.record(event);
  }
}
