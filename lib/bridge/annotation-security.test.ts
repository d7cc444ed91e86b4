import { describe, expect, it } from 'vitest';
import { securityFromAnnotations } from './annotation-security';

describe('securityFromAnnotations', () => {
  it('maps MCP hints to MGP risk, and an open world to the network side effect', () => {
    const derived = { derived_from: 'mcp-annotations' };
    expect(securityFromAnnotations({ readOnlyHint: true })).toEqual({ risk_level: 'safe', ...derived });
    expect(securityFromAnnotations({ readOnlyHint: false, destructiveHint: true })).toEqual({ risk_level: 'dangerous', confirmation_required: true, ...derived });
    expect(securityFromAnnotations({ readOnlyHint: false, destructiveHint: false })).toEqual({ risk_level: 'moderate', ...derived });
    expect(securityFromAnnotations(undefined)).toEqual({ risk_level: 'moderate', ...derived });
    expect(securityFromAnnotations({ readOnlyHint: true, openWorldHint: true })).toEqual({ risk_level: 'safe', side_effects: ['network'], ...derived });
    // Read-only wins over a contradictory destructive hint: a tool that changes nothing destroys nothing.
    expect(securityFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toEqual({ risk_level: 'safe', ...derived });
  });
});
