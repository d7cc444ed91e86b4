import type { AuditEventType } from '../../protocol';

/**
 * The event type of a security refusal: `TOOL_BLOCKED` for a refused tool call (MGP §6.4's definition),
 * `ACCESS_DENIED` for everything else.
 */
export function violationEventType(attemptedKind: string | undefined, method?: unknown): 'TOOL_BLOCKED' | 'ACCESS_DENIED' {
  return attemptedKind === 'mcp/request' && method === 'tools/call' ? 'TOOL_BLOCKED' : 'ACCESS_DENIED';
}

/** What callers hand to `AuditLog.record`: an event before the log numbers and chains it. */
export interface AuditRecord {
  /** Defaults to the time of the `record` call. */
  ts?: string;
  space: string;
  type: AuditEventType | (string & {});
  actor?: string;
  subject?: string;
  envelope_id?: string;
  /** Must be JSON-serialisable. The log serialises it later, off the message path: do not mutate it afterwards. */
  details?: Record<string, unknown>;
}
