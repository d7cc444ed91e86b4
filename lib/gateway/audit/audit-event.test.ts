import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPE_NAMES, AUDIT_EVENT_TYPES, isAuditEventType, violationEventType } from './audit-event';

describe('audit event types', () => {
  it('uses the MGP §6.4 names for grants, revocations and blocked tool calls', () => {
    const mgp = AUDIT_EVENT_TYPE_NAMES.filter((t) => AUDIT_EVENT_TYPES[t].mgp);
    expect(mgp).toEqual(['ACCESS_GRANTED', 'ACCESS_REVOKED', 'TOOL_BLOCKED']);
    expect(isAuditEventType('PROPOSAL_FULFILLED')).toBe(true);
    expect(isAuditEventType('toString')).toBe(false);
  });

  it('classifies a refused tools/call as TOOL_BLOCKED and every other refusal as ACCESS_DENIED', () => {
    expect(violationEventType('mcp/request', 'tools/call')).toBe('TOOL_BLOCKED');
    expect(violationEventType('mcp/request', 'tools/list')).toBe('ACCESS_DENIED');
    expect(violationEventType('capability/grant')).toBe('ACCESS_DENIED');
    expect(violationEventType(undefined)).toBe('ACCESS_DENIED');
  });
});
