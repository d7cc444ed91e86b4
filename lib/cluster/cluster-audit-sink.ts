import type { AuditLog } from '../gateway/audit';
import type { AuditInput, AuditSink } from '../gateway/audit-sink';
import { clusterKeys } from './cluster-keys';
import type { FencedWriter } from './fenced-writer';

/**
 * Audit events of an owned space, appended to the space's audit stream in the owner's fenced writes, and to the
 * owner's own audit log (rebuilt from the stream at each takeover) that its audit API reads. `recordNow` keeps its
 * promise: the event is written in the same atomic batch as the change it records (appended in the same turn,
 * before anything that tells a client), so both survive an owner's crash or neither does.
 */
export class ClusterAuditSink implements AuditSink {
  constructor(
    private readonly writer: FencedWriter,
    private readonly mirror: AuditLog,
  ) {}

  record(event: AuditInput): void {
    const stamped = { ...event, ts: new Date().toISOString() };
    this.writer.append(clusterKeys.audit(event.space), 0, ['e', JSON.stringify(stamped)]);
    this.mirror.record(stamped);
  }

  recordNow(event: AuditInput): void {
    this.record(event);
  }
}
