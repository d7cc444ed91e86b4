import { describe, expect, it } from 'vitest';
import { containsRegex } from './contains-regex';
import { normalizeCapability } from './normalize-capability';

describe('containsRegex', () => {
  it.each([
    [{ kind: '/^mcp\\//' }, true],
    [{ kind: 'mcp/request', payload: { params: { name: ['read_*', '!/^rm/'] } } }, true],
    [{ kind: 'mcp/request', payload: { method: 'tools/*', params: { name: '!delete_*' } } }, false],
    [{ kind: ['chat', 'mcp/*'] }, false],
  ])('tells whether %j uses a regular expression (%s)', (pattern, expected) => {
    expect(containsRegex(normalizeCapability(pattern))).toBe(expected);
  });
});
