import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPE_NAMES, AUDIT_EVENT_TYPES, isAuditEventType } from './audit-events';

describe('audit event types', () => {
  it('uses the MGP §6.4 names for grants, revocations and blocked tool calls', () => {
    const mgp = AUDIT_EVENT_TYPE_NAMES.filter((t) => AUDIT_EVENT_TYPES[t].mgp);
    expect(mgp).toEqual(['ACCESS_GRANTED', 'ACCESS_REVOKED', 'TOOL_BLOCKED']);
    expect(isAuditEventType('PROPOSAL_FULFILLED')).toBe(true);
    expect(isAuditEventType('toString')).toBe(false);
  });
});
