import { describe, expect, it } from 'vitest';
import { CapabilityError } from './capability-error';
import { parseJsonPath } from './json-path';
import { normalizeCapabilities, normalizeCapability } from './normalize-capability';

/** The CapabilityError `run` throws, for asserting on its path and message. */
function errorOf(run: () => unknown): CapabilityError {
  try {
    run();
  } catch (e) {
    if (e instanceof CapabilityError) return e;
    throw e;
  }
  throw new Error('expected a CapabilityError');
}

describe('normalizeCapability: MCPx strings', () => {
  it.each([
    ['chat', { kind: 'chat' }],
    ['*', { kind: '*' }],
    ['mcp/*', { kind: 'mcp/*' }],
    ['mcp/request:*', { kind: 'mcp/request' }],
    ['mcp/proposal:*', { kind: 'mcp/proposal' }],
    ['mcp/response:*', { kind: 'mcp/response' }],
    ['mcp/request:tools/*', { kind: 'mcp/request', payload: { method: 'tools/*' } }],
    ['mcp/request:*/list', { kind: 'mcp/request', payload: { method: '*/list' } }],
    ['mcp/request:tools/call', { kind: 'mcp/request', payload: { method: 'tools/call' } }],
    ['mcp/request:tools/call:read_*', { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_*' } } }],
    ['mcp/proposal:tools/call:*', { kind: 'mcp/proposal', payload: { method: 'tools/call' } }],
    ['mcp/request:*:read_*', { kind: 'mcp/request', payload: { params: { name: 'read_*' } } }],
    ['mcp/request:prompts/get:summarise', { kind: 'mcp/request', payload: { method: 'prompts/get', params: { name: 'summarise' } } }],
    ['mcp/request:resources/read:file:///tmp/*', { kind: 'mcp/request', payload: { method: 'resources/read', params: { uri: 'file:///tmp/*' } } }],
    ['mcp/request:resources/*:db://*', { kind: 'mcp/request', payload: { method: 'resources/*', params: { uri: 'db://*' } } }],
  ])('%s', (input, expected) => {
    expect(normalizeCapability(input)).toEqual(expected);
  });

  it.each(['', ':', 'mcp/request:', ':tools/call', 'mcp/request::read', 'mcp/request:tools/call:'])('rejects the empty segment in %j', (input) => {
    const error = errorOf(() => normalizeCapability(input));
    expect(error.path).toEqual([]);
    expect(error.message).toMatch(/empty segment/);
  });

  it.each(['mcp/response:tools/call', 'mcp/response:*:read_file'])('refuses %j: a response carries no method or params', (input) => {
    expect(errorOf(() => normalizeCapability(input)).message).toMatch(/would never match.*write "mcp\/response"/);
  });

  it('validates regex segments', () => {
    expect(errorOf(() => normalizeCapability('mcp/request:/(/')).message).toMatch(/invalid regular expression/);
  });
});

describe('normalizeCapability: pattern objects', () => {
  it('returns an equal, fresh, deeply frozen copy', () => {
    const input = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: ['a', 'b'] } } };
    const output = normalizeCapability(input);
    expect(output).toEqual(input);
    expect(output).not.toBe(input);
    expect(output.payload).not.toBe(input.payload);
    expect(Object.isFrozen(output)).toBe(true);
    expect(Object.isFrozen((output.payload as { params: { name: string[] } }).params.name)).toBe(true);
  });

  it('is idempotent', () => {
    const once = normalizeCapability('mcp/request:tools/call:read_*');
    expect(normalizeCapability(once)).toEqual(once);
  });

  it('keeps annotations (id, name, description), unchecked as patterns', () => {
    expect(normalizeCapability({ kind: 'chat', id: 'c1', name: 'Chat', description: '/not a regex(' })).toEqual({
      kind: 'chat',
      id: 'c1',
      name: 'Chat',
      description: '/not a regex(',
    });
  });

  it('refuses any other key, so a typo cannot widen a capability to the whole kind', () => {
    expect(() => normalizeCapability({ kind: 'mcp/request', paylaod: { method: 'tools/list' } })).toThrow(/unknown key "paylaod"/);
  });

  it('drops an undefined payload', () => {
    expect(normalizeCapability({ kind: 'chat', payload: undefined })).toEqual({ kind: 'chat' });
    expect('payload' in normalizeCapability({ kind: 'chat', payload: undefined })).toBe(false);
  });

  it('keeps an own "__proto__" key as data, not as a prototype', () => {
    const output = normalizeCapability(JSON.parse('{"kind":"k","payload":{"__proto__":{"polluted":"yes"}}}'));
    const payload = output.payload as Record<string, unknown>;
    expect(Object.hasOwn(payload, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts a kind one-of, regexes, negations and valid JSONPath keys', () => {
    const input = {
      kind: ['chat', '/^mcp\\//', '!system/*'],
      payload: { '$.a.b': 1, '$.a[0]': 2, '$.a[*].b': 3, '$..name': 4, '$..*': 5, "$['x y']": 6, '$["q\\"r"]': 7, $: {} },
    };
    expect(normalizeCapability(input)).toEqual(input);
  });
});

describe('normalizeCapability: invalid input', () => {
  it.each([
    ['a number', 42, []],
    ['null', null, []],
    ['undefined', undefined, []],
    ['an array', [{ kind: 'chat' }], []],
    ['a class instance', new Date(), []],
    ['no kind', { payload: {} }, ['kind']],
    ['a numeric kind', { kind: 7 }, ['kind']],
    ['an empty kind', { kind: '' }, ['kind']],
    ['an object kind', { kind: { a: 1 } }, ['kind']],
    ['an empty kind array', { kind: [] }, ['kind']],
    ['a non-string in a kind array', { kind: ['chat', 3] }, ['kind', 1]],
    ['an empty string in a kind array', { kind: ['chat', ''] }, ['kind', 1]],
    ['an invalid kind regex', { kind: '/(/' }, ['kind']],
    ['an invalid regex in a kind array', { kind: ['chat', '/[/'] }, ['kind', 1]],
    ['an invalid payload regex', { kind: 'k', payload: { params: { name: '/a(/' } } }, ['payload', 'params', 'name']],
    ['an invalid negated regex', { kind: 'k', payload: { name: '!/+/' } }, ['payload', 'name']],
    ['a duplicate regex flag', { kind: 'k', payload: { name: '/a/ii' } }, ['payload', 'name']],
    ['an invalid regex in a one-of', { kind: 'k', payload: { name: ['ok', '/(/'] } }, ['payload', 'name', 1]],
    ['an empty one-of', { kind: 'k', payload: { name: [] } }, ['payload', 'name']],
    ['a non-finite number', { kind: 'k', payload: { n: Infinity } }, ['payload', 'n']],
    ['NaN', { kind: 'k', payload: { n: NaN } }, ['payload', 'n']],
    ['a function', { kind: 'k', payload: { f: () => 1 } }, ['payload', 'f']],
    ['a nested undefined', { kind: 'k', payload: { u: undefined } }, ['payload', 'u']],
    ['a bigint', { kind: 'k', payload: { b: 1n } }, ['payload', 'b']],
    ['a Map', { kind: 'k', payload: { m: new Map() } }, ['payload', 'm']],
    ['a non-JSON annotation', { kind: 'k', description: { f: Symbol('x') } }, ['description', 'f']],
  ] as [string, unknown, (string | number)[]][])('rejects %s', (_, input, path) => {
    const error = errorOf(() => normalizeCapability(input));
    expect(error.path).toEqual(path);
    expect(error.name).toBe('CapabilityError');
    expect(error.message.length).toBeGreaterThan(10);
  });

  it.each([
    ['$.', /expected a name/],
    ['$..', /expected a name/],
    ['$.a.', /expected a name/],
    ['$a', /unexpected "a"/],
    ['$.a[', /expected an index/],
    ['$.a[x]', /expected an index/],
    ['$.a[0', /expected "\]"/],
    ['$.a[-1]', /expected an index/],
    ['$.[0]', /without a "\."/],
    ["$['a", /unterminated/],
    ["$['a\\b']", /may be escaped/],
    ['$..a..b', /only once/],
    ['$.a b', /unexpected " "/],
  ])('rejects the JSONPath key %j', (key, message) => {
    const error = errorOf(() => normalizeCapability({ kind: 'k', payload: { nested: { [key]: 1 } } }));
    expect(error.path).toEqual(['payload', 'nested', key]);
    expect(error.message).toMatch(/invalid JSONPath key/);
    expect(error.message).toMatch(message);
  });

  it('only reads keys starting with "$" as JSONPath', () => {
    expect(() => parseJsonPath('a.b')).toThrow(/must start with "\$"/);
    expect(normalizeCapability({ kind: 'k', payload: { 'a.b[': 1 } })).toEqual({ kind: 'k', payload: { 'a.b[': 1 } });
  });

  it('rejects nesting deeper than 32 levels, and cycles', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expect(errorOf(() => normalizeCapability({ kind: 'k', payload: deep })).message).toMatch(/deeper than 32/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(errorOf(() => normalizeCapability({ kind: 'k', payload: cyclic })).message).toMatch(/deeper than 32/);
  });
});

describe('normalizeCapabilities', () => {
  it('normalises each entry', () => {
    expect(normalizeCapabilities(['chat', { kind: 'mcp/*' }, 'mcp/request:tools/*'])).toEqual([
      { kind: 'chat' },
      { kind: 'mcp/*' },
      { kind: 'mcp/request', payload: { method: 'tools/*' } },
    ]);
  });

  it('puts the index of the bad entry first in the path', () => {
    const error = errorOf(() => normalizeCapabilities(['chat', { kind: 'k', payload: { a: { b: '/(/' } } }]));
    expect(error.path).toEqual([1, 'payload', 'a', 'b']);
  });

  it('rejects a non-array', () => {
    expect(errorOf(() => normalizeCapabilities({ kind: 'chat' })).path).toEqual([]);
  });
});
