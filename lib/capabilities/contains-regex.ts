import type { CapabilityPattern } from './capability-pattern';
import { parseStringPattern } from './pattern-string';

/**
 * Whether a capability uses a `/regex/` anywhere (kind, payload values, negations). The gateway refuses
 * them in runtime grants and invites: a regex runs on every message of its holder, and one written to
 * backtrack catastrophically would stall the gateway, so only the operator's space config may use them.
 *
 * @example
 * containsRegex({ kind: 'mcp/request', payload: { method: '/^tools\\//' } }); // true
 * containsRegex({ kind: 'mcp/*' }); // false
 */
export function containsRegex(pattern: CapabilityPattern): boolean {
  return hasRegex(pattern.kind) || hasRegex(pattern.payload);
}

function hasRegex(value: unknown): boolean {
  if (typeof value === 'string') {
    const parsed = parseStringPattern(value);
    return (parsed.type === 'not' ? parsed.inner : parsed).type === 'regex';
  }
  if (Array.isArray(value)) return value.some(hasRegex);
  if (value && typeof value === 'object') return Object.values(value).some(hasRegex);
  return false;
}
