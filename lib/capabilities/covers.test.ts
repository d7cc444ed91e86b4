import { describe, expect, it } from 'vitest';
import type { CapabilityInput } from './capability-pattern';
import { CapabilityError } from './capability-error';
import { covers, coversAll } from './covers';
import { globCovers } from './glob';

// [what, held, wanted, covered?]. Every `true` row is a proof obligation; every `false` row is
// either genuinely not covered or deliberately conservative (marked "conservative").
type Row = [string, CapabilityInput, CapabilityInput, boolean];

const on = (payload: unknown): CapabilityInput => ({ kind: 'k', payload }) as CapabilityInput;

const rows: Row[] = [
  // kinds
  ['a kind covers itself', { kind: 'chat' }, { kind: 'chat' }, true],
  ['a different kind', { kind: 'chat' }, { kind: 'mcp/request' }, false],
  ['"*" covers any kind', { kind: '*' }, { kind: 'mcp/request' }, true],
  ['"*" covers a regex kind', { kind: '*' }, { kind: '/^x/' }, true],
  ['"*" covers a negated kind (kinds are always strings)', { kind: '*' }, { kind: '!system/*' }, true],
  ['"mcp/*" covers "mcp/request"', { kind: 'mcp/*' }, { kind: 'mcp/request' }, true],
  ['"mcp/*" covers "mcp/re*"', { kind: 'mcp/*' }, { kind: 'mcp/re*' }, true],
  ['"mcp/re*" does not cover "mcp/*"', { kind: 'mcp/re*' }, { kind: 'mcp/*' }, false],
  ['"mcp/*" does not cover "*"', { kind: 'mcp/*' }, { kind: '*' }, false],
  ['"*/list" covers "tools/list"', { kind: '*/list' }, { kind: 'tools/list' }, true],
  ['"*/list" covers "*s/list"', { kind: '*/list' }, { kind: '*s/list' }, true],
  ['"a?c" covers "abc"', { kind: 'a?c' }, { kind: 'abc' }, true],
  ['"a?c" covers "a?c"', { kind: 'a?c' }, { kind: 'a?c' }, true],
  ['"a?c" does not cover "a*c"', { kind: 'a?c' }, { kind: 'a*c' }, false],
  ['"a*c" covers "a?c"', { kind: 'a*c' }, { kind: 'a?c' }, true],
  ['"*?" covers "?*" (same language)', { kind: '*?' }, { kind: '?*' }, true],
  ['"a**" covers "a*"', { kind: 'a**' }, { kind: 'a*' }, true],
  ['a kind one-of covers a member', { kind: ['chat', 'mcp/*'] }, { kind: 'mcp/response' }, true],
  ['a kind one-of is covered element-wise', { kind: ['chat', 'mcp/*'] }, { kind: ['chat', 'mcp/request'] }, true],
  ['a kind one-of with one uncovered element', { kind: 'mcp/*' }, { kind: ['chat', 'mcp/request'] }, false],
  ['a literal kind is tested against a negated held kind', { kind: '!system/*' }, { kind: 'chat' }, true],
  ['a negated held kind does not cover what it excludes', { kind: '!system/*' }, { kind: 'system/welcome' }, false],
  ['a regex held kind covers a literal it matches', { kind: '/^mcp\\//' }, { kind: 'mcp/request' }, true],
  ['a regex held kind covers only an identical regex', { kind: '/^mcp\\//' }, { kind: '/^mcp\\//' }, true],
  ['a regex held kind vs another regex (conservative)', { kind: '/^mcp\\//' }, { kind: '/^mcp\\/request$/' }, false],
  ['a regex held kind vs a glob (conservative)', { kind: '/^mcp\\//' }, { kind: 'mcp/*' }, false],
  // payload presence
  ['no held payload covers any payload', { kind: 'k' }, on({ a: '!x', b: [1, 2] }), true],
  ['a held payload does not cover "any payload"', on({}), { kind: 'k' }, false],
  ['"{}" covers an object pattern', on({}), on({ a: 1 }), true],
  ['"{}" does not cover a string payload', on({}), on('*'), false],
  // objects
  ['extra wanted keys only narrow', on({ method: 'tools/call' }), on({ method: 'tools/call', params: { name: 'x' } }), true],
  ['a held key missing from wanted', on({ method: 'tools/call', params: { name: 'x' } }), on({ method: 'tools/call' }), false],
  ['nested objects', on({ params: { name: 'read_*' } }), on({ params: { name: 'read_file', arguments: {} } }), true],
  ['nested objects that widen', on({ params: { name: 'read_file' } }), on({ params: { name: 'read_*' } }), false],
  ['an object does not cover a string', on({ a: {} }), on({ a: 'x' }), false],
  ['a string does not cover an object', on({ a: '*' }), on({ a: {} }), false],
  // scalars
  ['a number covers itself', on({ n: 1 }), on({ n: 1 }), true],
  ['a number does not cover another', on({ n: 1 }), on({ n: 2 }), false],
  ['a string does not cover a number', on({ n: '1' }), on({ n: 1 }), false],
  ['"*" does not cover a number', on({ n: '*' }), on({ n: 1 }), false],
  ['null covers null', on({ n: null }), on({ n: null }), true],
  ['true does not cover false', on({ b: true }), on({ b: false }), false],
  ['a one-of covers a scalar member', on({ n: [1, 2] }), on({ n: 2 }), true],
  // arrays (one-of)
  ['a one-of covers a sub-one-of', on({ n: ['a', 'b', 'c'] }), on({ n: ['c', 'a'] }), true],
  ['a one-of does not cover a wider one-of', on({ n: ['a', 'b'] }), on({ n: ['a', 'z'] }), false],
  ['a glob covers a one-of of literals', on({ n: 'read_*' }), on({ n: ['read_a', 'read_b'] }), true],
  ['a one-of of globs covers a glob', on({ n: ['read_*', 'list_*'] }), on({ n: 'list_f*' }), true],
  ['a one-of of objects', on([{ a: 1 }, { b: 2 }]), on({ b: 2, c: 3 }), true],
  // negations
  ['a negation covers a literal it allows', on({ n: '!delete_*' }), on({ n: 'read_file' }), true],
  ['a negation does not cover a literal it excludes', on({ n: '!delete_*' }), on({ n: 'delete_all' }), false],
  ['a negation covers a number (not a string)', on({ n: '!delete_*' }), on({ n: 7 }), true],
  ['a negation covers an object (not a string)', on({ n: '!x' }), on({ n: { a: 1 } }), true],
  ['a negation covers itself', on({ n: '!delete_*' }), on({ n: '!delete_*' }), true],
  ['"!a*" covers "!a" (excludes less)', on({ n: '!a' }), on({ n: '!a*' }), true],
  ['"!a" does not cover "!a*"... the other way round', on({ n: '!a*' }), on({ n: '!a' }), false],
  ['a negation vs a glob (conservative)', on({ n: '!delete_*' }), on({ n: 'read_*' }), false],
  ['"*" does not cover a payload negation (missing key)', on({ n: '*' }), on({ n: '!x' }), false],
  ['a glob does not cover a negation', on({ n: 'a*' }), on({ n: '!b' }), false],
  ['a negated regex covers only itself', on({ n: '!/^rm/' }), on({ n: '!/^rm/' }), true],
  ['a negated regex vs another (conservative)', on({ n: '!/^rm/' }), on({ n: '!/^rm_/' }), false],
  // regexes
  ['a regex covers a literal it matches', on({ n: '/^read_/' }), on({ n: 'read_file' }), true],
  ['a regex does not cover a literal it rejects', on({ n: '/^read_/' }), on({ n: 'write' }), false],
  ['a regex covers an identical regex', on({ n: '/^read_/' }), on({ n: '/^read_/' }), true],
  ['a regex vs a glob (conservative)', on({ n: '/^read_/' }), on({ n: 'read_*' }), false],
  ['"*" covers a regex', on({ n: '*' }), on({ n: '/^read_/' }), true],
  ['a glob other than "*" vs a regex', on({ n: 'read_*' }), on({ n: '/^read_/' }), false],
  // JSONPath keys
  ['a JSONPath key covers an identical key and value', on({ '$..name': 'a*' }), on({ '$..name': 'a*', x: 1 }), true],
  ['a JSONPath key vs a narrower value (conservative)', on({ '$..name': 'a*' }), on({ '$..name': 'ab' }), false],
  ['a negated JSONPath key is not narrowed like a plain key', on({ '$..n': '!a*' }), on({ '$..n': '!a' }), false],
  ['a JSONPath key vs a different path', on({ '$..name': 'a*' }), on({ '$.name': 'a*' }), false],
  ['a JSONPath key vs a plain key (conservative)', on({ '$.name': 'a*' }), on({ name: 'a*' }), false],
  ['an extra JSONPath key in wanted only narrows', on({ name: 'a*' }), on({ name: 'ab', '$..x': 1 }), true],
  ['a JSONPath key with a deep-equal object value', on({ '$.a': { b: [1, 'x'] } }), on({ '$.a': { b: [1, 'x'] } }), true],
  ['a JSONPath key with a different object value', on({ '$.a': { b: [1, 'x'] } }), on({ '$.a': { b: [1, 'y'] } }), false],
  // MCPx shorthand
  ['MCPx: tools/* covers a tool call', 'mcp/request:tools/*', 'mcp/request:tools/call:read_file', true],
  ['MCPx: mcp/* covers any MCP capability', 'mcp/*', 'mcp/request:tools/call', true],
  ['MCPx: a tool call does not cover all tools', 'mcp/request:tools/call:read_file', 'mcp/request:tools/*', false],
  ['MCPx: read_* covers read_file', 'mcp/request:tools/call:read_*', 'mcp/request:tools/call:read_file', true],
  ['MCPx: proposals do not cover requests', 'mcp/proposal:*', 'mcp/request:tools/call', false],
];

describe('covers', () => {
  it.each(rows)('%s', (_, held, wanted, covered) => {
    expect(covers([held], wanted)).toBe(covered);
  });

  it('needs one single held capability to cover (no unions)', () => {
    // Together these allow every method, but neither alone does: conservatively false.
    const held: CapabilityInput[] = [on({ m: 'a*' }), on({ m: '!a*' })];
    expect(covers(held, on({ m: '*' }))).toBe(false);
    expect(covers(held, on({ m: 'ab' }))).toBe(true);
  });

  it('with nothing held covers nothing', () => {
    expect(covers([], { kind: 'chat' })).toBe(false);
  });

  it('throws CapabilityError for invalid input', () => {
    expect(() => covers([{ kind: 'chat' }], { kind: 3 } as unknown as CapabilityInput)).toThrow(CapabilityError);
    expect(() => covers([{ kind: '/(/' }], 'chat')).toThrow(CapabilityError);
  });
});

describe('coversAll', () => {
  const held: CapabilityInput[] = [{ kind: 'mcp/*' }, { kind: 'chat' }, { kind: 'capability/grant' }];

  it('holds when each wanted capability is covered', () => {
    expect(coversAll(held, ['chat', 'mcp/proposal:*', { kind: 'mcp/request', payload: { method: 'tools/list' } }])).toBe(true);
  });

  it('fails when one is not', () => {
    expect(coversAll(held, ['chat', 'space/kick'])).toBe(false);
  });

  it('holds vacuously for an empty grant', () => {
    expect(coversAll([], [])).toBe(true);
  });

  it('reports the index of an invalid wanted capability', () => {
    try {
      coversAll(held, ['chat', { kind: 'k', payload: { a: '/(/' } }]);
      expect.unreachable();
    } catch (e) {
      expect((e as CapabilityError).path).toEqual([1, 'payload', 'a']);
    }
  });
});

describe('globCovers', () => {
  it.each([
    ['*', '', true],
    ['', '', true],
    ['', '*', false],
    ['a', 'a', true],
    ['a', 'b', false],
    ['?', 'a', true],
    ['?', '?', true],
    ['?', '*', false],
    ['?', '', false],
    ['a*', 'ab*', true],
    ['*b', 'a*b', true],
    ['*b', 'a*', false],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'a*c', false],
    ['*a*', '?*a?*', true],
    ['*?', '?*', true],
    ['?*', '*?', true],
    ['??', '?*', false],
  ])('globCovers(%j, %j) is %s', (held, wanted, covered) => {
    expect(globCovers(held, wanted)).toBe(covered);
  });
});
