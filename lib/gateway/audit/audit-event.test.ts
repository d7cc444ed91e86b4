import { describe, expect, it } from 'vitest';
import { violationEventType } from './audit-event';

describe('violation event types', () => {
  it('classifies a refused tools/call as TOOL_BLOCKED and every other refusal as ACCESS_DENIED', () => {
    expect(violationEventType('mcp/request', 'tools/call')).toBe('TOOL_BLOCKED');
    expect(violationEventType('mcp/request', 'tools/list')).toBe('ACCESS_DENIED');
    expect(violationEventType('capability/grant')).toBe('ACCESS_DENIED');
    expect(violationEventType(undefined)).toBe('ACCESS_DENIED');
  });
});
