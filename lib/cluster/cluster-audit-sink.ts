import type { AuditInput, AuditSink } from '../gateway/audit-sink';
import { clusterKeys } from './cluster-keys';
import type { FencedWriter } from './fenced-writer';

/**
 * Audit events of an owned space, appended to the space's audit stream in the owner's fenced writes. `recordNow`
 * keeps its promise: the event is written in the same atomic batch as the change it records (appended in the same
 * turn, before anything that tells a client), so both survive an owner's crash or neither does.
 */
export class ClusterAuditSink implements AuditSink {
  constructor(private readonly writer: FencedWriter) {}

  record(event: AuditInput): void {
    this.writer.append(clusterKeys.audit(event.space), 0, ['e', JSON.stringify({ ...event, ts: new Date().toISOString() })]);
  }

  recordNow(event: AuditInput): void {
    this.record(event);
  }
}
