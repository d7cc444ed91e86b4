import { describe, expect, it } from 'vitest';
import { isDangerousRisk, securityFromAnnotations, toolRisk } from './tool-risk';
import { parseToolsListResult } from './tools-list';

const derived = { derived_from: 'mcp-annotations' };

describe('securityFromAnnotations (the MCP annotation mapping)', () => {
  it('maps MCP hints to MGP risk, and an open world to the network side effect', () => {
    expect(securityFromAnnotations({ readOnlyHint: true })).toEqual({ risk_level: 'safe', ...derived });
    expect(securityFromAnnotations({ readOnlyHint: false, destructiveHint: true })).toEqual({
      risk_level: 'dangerous',
      confirmation_required: true,
      ...derived,
    });
    expect(securityFromAnnotations({ destructiveHint: true })).toEqual({ risk_level: 'dangerous', confirmation_required: true, ...derived });
    expect(securityFromAnnotations({ readOnlyHint: false, destructiveHint: false })).toEqual({ risk_level: 'moderate', ...derived });
    expect(securityFromAnnotations({ readOnlyHint: false })).toEqual({ risk_level: 'moderate', ...derived });
    expect(securityFromAnnotations({ readOnlyHint: true, openWorldHint: true })).toEqual({ risk_level: 'safe', side_effects: ['network'], ...derived });
    // Read-only wins over a contradictory destructive hint: a tool that changes nothing destroys nothing.
    expect(securityFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toEqual({ risk_level: 'safe', ...derived });
  });

  it('reads nothing from annotations without a hint', () => {
    expect(securityFromAnnotations(undefined)).toBeUndefined();
    expect(securityFromAnnotations({ title: 'Peek' })).toBeUndefined();
    expect(securityFromAnnotations({ readOnlyHint: 'yes' })).toBeUndefined();
    expect(securityFromAnnotations('readOnly')).toBeUndefined();
  });
});

describe('toolRisk (the one tool-risk function)', () => {
  it('takes MGP security when the tool declares it, whatever its annotations say', () => {
    expect(toolRisk({ security: { risk_level: 'safe', reversible: true }, annotations: { destructiveHint: true } })).toEqual({
      risk_level: 'safe',
      reversible: true,
      source: 'security',
    });
    expect(toolRisk({ annotations: { risk_level: 'dangerous', readOnlyHint: true, title: 'x' } })).toEqual({ risk_level: 'dangerous', source: 'annotations' });
  });

  it('else maps MCP annotations as the bridge does, else leaves the risk undeclared', () => {
    expect(toolRisk({ annotations: { readOnlyHint: true } })).toEqual({ risk_level: 'safe', ...derived, source: 'mcp-hints' });
    expect(toolRisk({ annotations: { readOnlyHint: false, openWorldHint: true } })).toEqual({
      risk_level: 'moderate',
      side_effects: ['network'],
      ...derived,
      source: 'mcp-hints',
    });
    expect(toolRisk({ annotations: { destructiveHint: true } })).toEqual({
      risk_level: 'dangerous',
      confirmation_required: true,
      ...derived,
      source: 'mcp-hints',
    });
    expect(toolRisk({})).toBeUndefined();
    expect(toolRisk({ security: {}, annotations: { title: 'X' } })).toBeUndefined();
  });

  it('is what every tools/list reader sees', () => {
    expect(parseToolsListResult({ tools: [{ name: 'peek', annotations: { readOnlyHint: true } }, { name: 'plain' }] })).toEqual([
      { name: 'peek', security: { risk_level: 'safe', ...derived, source: 'mcp-hints' } },
      { name: 'plain' },
    ]);
  });
});

describe('isDangerousRisk', () => {
  it('is true for dangerous or confirm-first tools, and for undeclared risk only when asked', () => {
    expect(isDangerousRisk({ risk_level: 'dangerous' })).toBe(true);
    expect(isDangerousRisk({ risk_level: 'safe', confirmation_required: true })).toBe(true);
    expect(isDangerousRisk({ confirmation_required: true })).toBe(true);
    expect(isDangerousRisk({ risk_level: 'moderate' })).toBe(false);
    expect(isDangerousRisk(undefined)).toBe(false);
    expect(isDangerousRisk(undefined, true)).toBe(true);
    expect(isDangerousRisk({ confirmation_required: false }, true)).toBe(true);
    expect(isDangerousRisk({ risk_level: 'moderate' }, true)).toBe(false);
  });
});
