import { describe, expect, it } from 'vitest';
import type { CapabilityInput, CapabilityMessage, PatternValue } from './capability-pattern';
import { compileCapabilities, compileCapability } from './compile-pattern';

// Worked examples of every matching rule: [what, capability, envelope, allowed?].
type Example = [string, CapabilityInput, CapabilityMessage, boolean];

/** A capability for kind "k" whose payload pattern is `payload`: the payload rules in isolation. */
const onPayload = (payload: PatternValue): CapabilityInput => ({ kind: 'k', payload });
const k = (payload?: unknown): CapabilityMessage => (payload === undefined ? { kind: 'k' } : { kind: 'k', payload });

const kinds: Example[] = [
  ['an exact kind matches itself', { kind: 'chat' }, { kind: 'chat' }, true],
  ['an exact kind is not a prefix', { kind: 'chat' }, { kind: 'chat/acknowledge' }, false],
  ['an exact kind is case-sensitive', { kind: 'chat' }, { kind: 'Chat' }, false],
  ['"*" matches every kind', { kind: '*' }, { kind: 'participant/pause' }, true],
  ['"*" matches the empty kind', { kind: '*' }, { kind: '' }, true],
  ['"mcp/*" matches an MCP kind', { kind: 'mcp/*' }, { kind: 'mcp/request' }, true],
  ['"mcp/*" matches "mcp/" itself (empty run)', { kind: 'mcp/*' }, { kind: 'mcp/' }, true],
  ['"mcp/*" needs the slash', { kind: 'mcp/*' }, { kind: 'mcp' }, false],
  ['"mcp/*" is anchored at the start', { kind: 'mcp/*' }, { kind: 'x/mcp/request' }, false],
  ['"*" crosses "/"', { kind: 'mcp/*' }, { kind: 'mcp/a/b/c' }, true],
  ['a leading "*" matches a suffix', { kind: '*/list' }, { kind: 'tools/list' }, true],
  ['a leading "*" crosses "/"', { kind: '*/list' }, { kind: 'a/b/list' }, true],
  ['a leading "*" is anchored at the end', { kind: '*/list' }, { kind: 'tools/list/x' }, false],
  ['"*" in the middle', { kind: 'mcp/*/x' }, { kind: 'mcp/a/b/x' }, true],
  ['"*" in the middle needs both ends', { kind: 'mcp/*/x' }, { kind: 'mcp/a/b/y' }, false],
  ['"*x*" finds an infix', { kind: '*pause*' }, { kind: 'participant/pause' }, true],
  ['several "*" backtrack correctly', { kind: '*a*b*c' }, { kind: 'xaxbxbxc' }, true],
  ['several "*" fail correctly', { kind: '*a*b*c' }, { kind: 'xaxcxb' }, false],
  ['"?" is exactly one character', { kind: 'chat/?' }, { kind: 'chat/x' }, true],
  ['"?" is not zero characters', { kind: 'chat/?' }, { kind: 'chat/' }, false],
  ['"?" is not two characters', { kind: 'chat/?' }, { kind: 'chat/xy' }, false],
  ['"?" matches "/"', { kind: 'a?b' }, { kind: 'a/b' }, true],
  ['"?*" is at least one character', { kind: 'x?*' }, { kind: 'x' }, false],
  ['regex metacharacters are literal in a glob', { kind: 'a.b+(c)' }, { kind: 'a.b+(c)' }, true],
  ['"." in a glob is not "any character"', { kind: 'a.b' }, { kind: 'axb' }, false],
  ['"[" in a glob is literal', { kind: '[ab]*' }, { kind: 'a' }, false],
  ['"*" crosses a newline', { kind: 'a*b' }, { kind: 'a\nb' }, true],
  ['a kind one-of matches any element', { kind: ['chat', 'mcp/*'] }, { kind: 'mcp/response' }, true],
  ['a kind one-of matches no other', { kind: ['chat', 'mcp/*'] }, { kind: 'stream/request' }, false],
  ['a negated kind excludes', { kind: '!system/*' }, { kind: 'system/welcome' }, false],
  ['a negated kind allows the rest', { kind: '!system/*' }, { kind: 'chat' }, true],
  ['a regex kind', { kind: '/^(chat|mcp\\/response)$/' }, { kind: 'mcp/response' }, true],
  ['a regex kind is tested as written', { kind: '/^(chat|mcp\\/response)$/' }, { kind: 'chat/x' }, false],
  ['a non-string kind never matches a glob', { kind: '*' }, { kind: 42 as unknown as string }, false],
];

const payloads: Example[] = [
  ['no payload pattern: any payload', { kind: 'k' }, k({ anything: [1, 2] }), true],
  ['no payload pattern: no payload', { kind: 'k' }, k(), true],
  ['payload pattern, no payload', onPayload({ method: '*' }), k(), false],
  ['"{}" matches any object', onPayload({}), k({ a: 1 }), true],
  ['"{}" does not match an array', onPayload({}), k([]), false],
  ['"{}" does not match null', onPayload({}), k(null), false],
  ['"{}" does not match a string', onPayload({}), k('x'), false],
  ['an object pattern needs its keys', onPayload({ method: 'tools/call' }), k({ method: 'tools/call' }), true],
  ['extra keys in the message are allowed', onPayload({ method: 'tools/call' }), k({ method: 'tools/call', id: 7, jsonrpc: '2.0' }), true],
  ['a key with the wrong value', onPayload({ method: 'tools/call' }), k({ method: 'tools/list' }), false],
  ['a missing key fails a glob', onPayload({ method: '*' }), k({ id: 1 }), false],
  ['"*" does not match a number', onPayload({ id: '*' }), k({ id: 1 }), false],
  ['"*" does not match null', onPayload({ id: '*' }), k({ id: null }), false],
  ['"*" does not match an object', onPayload({ params: '*' }), k({ params: {} }), false],
  ['"*" matches the empty string', onPayload({ text: '*' }), k({ text: '' }), true],
  ['nested objects recurse', onPayload({ params: { name: 'read_*' } }), k({ params: { name: 'read_file', arguments: {} } }), true],
  ['nested objects recurse and fail', onPayload({ params: { name: 'read_*' } }), k({ params: { name: 'write_file' } }), false],
  ['a nested pattern needs an object', onPayload({ params: { name: '*' } }), k({ params: 'read_file' }), false],
  ['three levels deep', onPayload({ a: { b: { c: 1 } } }), k({ a: { b: { c: 1, d: 2 } } }), true],
  ['numbers compare strictly', onPayload({ n: 1 }), k({ n: 1 }), true],
  ['a number is not its string', onPayload({ n: 1 }), k({ n: '1' }), false],
  ['a numeric string pattern is not a number', onPayload({ n: '1' }), k({ n: 1 }), false],
  ['0 equals -0', onPayload({ n: 0 }), k({ n: -0 }), true],
  ['true is not 1', onPayload({ b: true }), k({ b: 1 }), false],
  ['true matches true', onPayload({ b: true }), k({ b: true }), true],
  ['false is not missing', onPayload({ b: false }), k({}), false],
  ['null matches null', onPayload({ v: null }), k({ v: null }), true],
  ['null is not missing', onPayload({ v: null }), k({}), false],
  ['null is not "null"', onPayload({ v: null }), k({ v: 'null' }), false],
  ['an undefined property counts as missing', onPayload({ v: '!x' }), k({ v: undefined }), true],
  ['a one-of array: first element', onPayload({ name: ['read_*', 'list_*'] }), k({ name: 'read_a' }), true],
  ['a one-of array: second element', onPayload({ name: ['read_*', 'list_*'] }), k({ name: 'list_a' }), true],
  ['a one-of array: no element', onPayload({ name: ['read_*', 'list_*'] }), k({ name: 'write_a' }), false],
  ['a one-of array mixes types', onPayload({ v: [1, 'x', null] }), k({ v: null }), true],
  ['a one-of array is not an array equality', onPayload({ v: ['a', 'b'] }), k({ v: ['a', 'b'] }), false],
  ['a one-of of objects', onPayload([{ a: 1 }, { b: 2 }]), k({ b: 2 }), true],
  ['a one-of with a negation matches a missing key', onPayload({ v: ['x', '!*'] }), k({}), true],
  ['a negation excludes a match', onPayload({ name: '!delete_*' }), k({ name: 'delete_all' }), false],
  ['a negation allows a non-match', onPayload({ name: '!delete_*' }), k({ name: 'read_file' }), true],
  ['a missing key satisfies a negation', onPayload({ name: '!delete_*' }), k({}), true],
  ['a non-string satisfies a negation', onPayload({ name: '!delete_*' }), k({ name: 42 }), true],
  ['an object satisfies a negation', onPayload({ name: '!delete_*' }), k({ name: { x: 'delete_all' } }), true],
  ['"!*" means "missing or not a string"', onPayload({ token: '!*' }), k({ token: 'secret' }), false],
  ['"!*" allows absence', onPayload({ token: '!*' }), k({}), true],
  ['a negated exact string', onPayload({ method: '!tools/call' }), k({ method: 'tools/call' }), false],
  ['a negated exact string allows others', onPayload({ method: '!tools/call' }), k({ method: 'tools/callx' }), true],
  ['a negated regex', onPayload({ name: '!/^rm/' }), k({ name: 'rm_rf' }), false],
  ['a negated regex allows others', onPayload({ name: '!/^rm/' }), k({ name: 'ls' }), true],
  ['a second "!" is literal', onPayload({ v: '!!x' }), k({ v: '!x' }), false],
  ['a second "!" is literal (other value)', onPayload({ v: '!!x' }), k({ v: 'x' }), true],
  ['a regex is unanchored', onPayload({ name: '/read/' }), k({ name: 'unread_file' }), true],
  ['a regex with anchors', onPayload({ name: '/^read_[a-z]+$/' }), k({ name: 'read_file' }), true],
  ['a regex with anchors rejects', onPayload({ name: '/^read_[a-z]+$/' }), k({ name: 'read_file2' }), false],
  ['a regex flag applies', onPayload({ name: '/^READ/i' }), k({ name: 'read_file' }), true],
  ['a regex body may contain "/"', onPayload({ uri: '/^file:\\/\\/\\/tmp\\//' }), k({ uri: 'file:///tmp/a' }), true],
  ['a regex does not match a non-string', onPayload({ n: '/1/' }), k({ n: 1 }), false],
  ['a regex does not match a missing key', onPayload({ n: '/.*/' }), k({}), false],
  ['"/tmp/" is a regex, not a literal', onPayload({ path: '/tmp/' }), k({ path: '/var/tmp/x' }), true],
  ['"/tmp/file" is a literal (not flags)', onPayload({ path: '/tmp/file' }), k({ path: '/tmp/file' }), true],
  ['"//" is a literal', onPayload({ path: '//' }), k({ path: 'x' }), false],
  ['"/a" is a literal glob', onPayload({ path: '/a*' }), k({ path: '/ab' }), true],
  ['a /g regex gives the same answer twice (1)', onPayload({ a: '/x/g' }), k({ a: 'x' }), true],
  ['a /y regex stays anchored at 0', onPayload({ a: '/x/y' }), k({ a: 'ax' }), false],
  ['own properties only: "constructor"', onPayload({ constructor: '*' }), k({}), false],
  ['own properties only: "toString"', onPayload({ toString: '!*' }), k({}), true],
  ['own properties only: "__proto__"', onPayload(JSON.parse('{"__proto__": {}}') as PatternValue), k({}), false],
  ['an own "__proto__" key from JSON is seen', onPayload(JSON.parse('{"__proto__": "x"}') as PatternValue), k(JSON.parse('{"__proto__": "x"}')), true],
  ['an object pattern does not read array indexes', onPayload({ 0: 'a' }), k(['a']), false],
];

const jsonPaths: Example[] = [
  ['"$.a.b" selects a nested value', onPayload({ '$.params.name': 'read_*' }), k({ params: { name: 'read_file' } }), true],
  ['"$.a.b" fails on a different value', onPayload({ '$.params.name': 'read_*' }), k({ params: { name: 'write' } }), false],
  ['"$.a.b" with nothing selected fails', onPayload({ '$.params.name': 'read_*' }), k({ params: {} }), false],
  ['"$.a[0]" selects by index', onPayload({ '$.args[0]': 'ls' }), k({ args: ['ls', '-l'] }), true],
  ['"$.a[1]" selects by index and fails', onPayload({ '$.args[1]': 'ls' }), k({ args: ['ls', '-l'] }), false],
  ['"$.a[9]" out of range selects nothing', onPayload({ '$.args[9]': '*' }), k({ args: ['ls'] }), false],
  ['"[0]" does not index an object', onPayload({ '$.args[0]': 'ls' }), k({ args: { 0: 'ls' } }), false],
  ['"$.a.length" is not an array length', onPayload({ '$.args.length': 1 }), k({ args: ['x'] }), false],
  ['"$.a[*].b": some element matches', onPayload({ '$.files[*].path': '/etc/*' }), k({ files: [{ path: 'a' }, { path: '/etc/passwd' }] }), true],
  ['"$.a[*].b": no element matches', onPayload({ '$.files[*].path': '/etc/*' }), k({ files: [{ path: 'a' }, { path: 'b' }] }), false],
  ['"$.*" selects own values', onPayload({ '$.*': 42 }), k({ x: 1, y: 42 }), true],
  ['"$..name" finds a deep value', onPayload({ '$..name': 'rm' }), k({ a: [{ b: { name: 'rm' } }] }), true],
  ['"$..name" includes the top level', onPayload({ '$..name': 'rm' }), k({ name: 'rm' }), true],
  ['"$..name" finds nothing', onPayload({ '$..name': 'rm' }), k({ a: [{ b: { other: 'rm' } }] }), false],
  ['"$..*" sees every value', onPayload({ '$..*': 'needle' }), k({ a: [1, { b: ['needle'] }] }), true],
  ['"$..[0]" indexes arrays at any depth', onPayload({ '$..[0]': 'x' }), k({ a: { b: ['x', 'y'] } }), true],
  ['"$[\'a b\']" quotes a key', onPayload({ "$['a b']": 1 }), k({ 'a b': 1 }), true],
  ['"$[\\"a.b\\"]" quotes a dotted key', onPayload({ '$["a.b"]': 1 }), k({ 'a.b': 1, a: { b: 2 } }), true],
  ['"$" is the object itself', onPayload({ $: { a: 1 } }), k({ a: 1 }), true],
  ['a JSONPath negation: none may match', onPayload({ '$..name': '!delete_*' }), k({ a: { name: 'read' }, b: { name: 'delete_all' } }), false],
  ['a JSONPath negation: all differ', onPayload({ '$..name': '!delete_*' }), k({ a: { name: 'read' }, b: { name: 'list' } }), true],
  ['a JSONPath negation: nothing selected', onPayload({ '$..name': '!delete_*' }), k({ a: 1 }), true],
  ['a JSONPath one-of: any element, any value', onPayload({ '$.tags[*]': ['x', 'y'] }), k({ tags: ['a', 'y'] }), true],
  ['a JSONPath follows own properties only', onPayload({ '$.__proto__': {} }), k({}), false],
  ['a JSONPath key is relative to its level', onPayload({ params: { '$.name': 'x' } }), k({ params: { name: 'x' } }), true],
  [
    'a JSONPath key next to plain keys',
    onPayload({ method: 'tools/call', '$.params.name': 'read_*' }),
    k({ method: 'tools/list', params: { name: 'read_x' } }),
    false,
  ],
];

describe.each([
  ['kinds', kinds],
  ['payloads', payloads],
  ['JSONPath keys', jsonPaths],
])('matching: %s', (_, examples) => {
  it.each(examples)('%s', (_what, capability, message, allowed) => {
    expect(compileCapability(capability)(message)).toBe(allowed);
    expect(compileCapabilities([capability]).matches(message)).toBe(allowed);
  });
});

describe('matching envelopes', () => {
  it('looks only at kind and payload', () => {
    const match = compileCapability({ kind: 'chat', payload: { text: '*' } });
    const envelope = { protocol: 'mew/v0.4', id: '1', from: 'x', to: ['y'], kind: 'chat', payload: { text: 'hi' } };
    expect(match(envelope)).toBe(true);
  });

  it('never throws on hostile or malformed messages', () => {
    const caps = compileCapabilities([{ kind: '*', payload: { '$..x': '!y', a: { b: '/z/' }, c: [1, '!*'] } }]);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = { x: deep };
    const hostile: unknown[] = [null, undefined, 42, 'chat', [], {}, { kind: null }, { kind: 'a', payload: deep }, { kind: 'a', payload: { a: deep } }];
    for (const message of hostile) {
      expect(() => caps.matches(message as CapabilityMessage)).not.toThrow();
      expect(() => compileCapability({ kind: '*' })(message as CapabilityMessage)).not.toThrow();
    }
  });

  it('terminates on cyclic in-process payloads (SDK use)', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    expect(compileCapability({ kind: 'k', payload: { '$..name': 'b' } })(k(cyclic))).toBe(false);
    expect(compileCapability({ kind: 'k', payload: { self: { self: { name: 'a' } } } })(k(cyclic))).toBe(true);
  });

  it('gives the same answer every time for /g and /y regexes', () => {
    const match = compileCapability({ kind: 'k', payload: { a: '/x/g', b: '/^y/y' } });
    for (let i = 0; i < 5; i++) expect(match(k({ a: 'x', b: 'y' }))).toBe(true);
  });

  it('matches in linear time on a long hostile string', () => {
    const match = compileCapability({ kind: 'k', payload: { a: '*a*a*a*a*a*a*a*b' } });
    const start = performance.now();
    expect(match(k({ a: 'a'.repeat(200_000) }))).toBe(false);
    expect(performance.now() - start).toBeLessThan(2_000);
  });
});

describe('compileCapabilities', () => {
  const caps = compileCapabilities([
    { kind: 'mcp/request', payload: { method: 'tools/call' } },
    { kind: 'mcp/*' },
    { kind: 'chat' },
    { kind: ['mcp/request', 'chat'] },
    { kind: '/^stream\\//' },
  ]);

  it.each([
    [{ kind: 'mcp/request', payload: { method: 'tools/call' } }, 0],
    [{ kind: 'mcp/request', payload: { method: 'tools/list' } }, 1],
    [{ kind: 'mcp/response' }, 1],
    [{ kind: 'chat' }, 2],
    [{ kind: 'stream/request' }, 4],
    [{ kind: 'participant/pause' }, -1],
  ] as [CapabilityMessage, number][])('firstMatch(%j) is %i, in the order given', (message, index) => {
    expect(caps.firstMatch(message)).toBe(index);
    expect(caps.matches(message)).toBe(index >= 0);
  });

  it('keeps order when a wildcard comes before an exact kind', () => {
    const ordered = compileCapabilities([{ kind: 'ch*' }, { kind: 'chat' }]);
    expect(ordered.firstMatch({ kind: 'chat' })).toBe(0);
  });

  it('finds a later exact kind after failing wildcards', () => {
    const ordered = compileCapabilities([{ kind: 'ch*', payload: { a: 1 } }, { kind: 'chat' }, { kind: '*' }]);
    expect(ordered.firstMatch({ kind: 'chat' })).toBe(1);
    expect(ordered.firstMatch({ kind: 'other' })).toBe(2);
  });

  it('treats a kind array with a wildcard as a wildcard', () => {
    const mixed = compileCapabilities([{ kind: ['chat', 'mcp/*'] }]);
    expect(mixed.firstMatch({ kind: 'mcp/request' })).toBe(0);
    expect(mixed.firstMatch({ kind: 'chat' })).toBe(0);
  });

  it('does not confuse a "__proto__" kind with the index', () => {
    const odd = compileCapabilities([{ kind: '__proto__' }, { kind: 'constructor' }]);
    expect(odd.firstMatch({ kind: '__proto__' })).toBe(0);
    expect(odd.firstMatch({ kind: 'constructor' })).toBe(1);
    expect(odd.firstMatch({ kind: 'toString' })).toBe(-1);
  });

  it('an empty set allows nothing', () => {
    expect(compileCapabilities([]).matches({ kind: 'chat' })).toBe(false);
  });

  it('exposes the normalised, frozen patterns', () => {
    const compiled = compileCapabilities(['chat', 'mcp/request:tools/*']);
    expect(compiled.patterns).toEqual([{ kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/*' } }]);
    expect(Object.isFrozen(compiled.patterns)).toBe(true);
    expect(Object.isFrozen(compiled.patterns[1].payload)).toBe(true);
  });

  it('compiles once: later changes to the input do not change the matcher', () => {
    const input = { kind: 'mcp/request', payload: { method: 'tools/list' } };
    const compiled = compileCapabilities([input]);
    input.payload.method = '*';
    input.kind = '*';
    expect(compiled.matches({ kind: 'mcp/request', payload: { method: 'tools/call' } })).toBe(false);
    expect(compiled.matches({ kind: 'mcp/request', payload: { method: 'tools/list' } })).toBe(true);
  });
});
