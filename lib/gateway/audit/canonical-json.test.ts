import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops whitespace, so equal values give equal text', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });

  it('sorts by UTF-16 code unit (RFC 8785), not numerically or by locale', () => {
    expect(canonicalJson({ '10': 0, '2': 0, b: 0, B: 0, é: 0 })).toBe('{"10":0,"2":0,"B":0,"b":0,"é":0}');
  });

  it('follows JSON.stringify for what JSON cannot hold', () => {
    const date = new Date('2026-01-01T00:00:00.000Z');
    expect(canonicalJson({ u: undefined, f: () => 1, n: NaN, i: -Infinity, d: date, arr: [undefined, 1] })).toBe(
      '{"arr":[null,1],"d":"2026-01-01T00:00:00.000Z","i":null,"n":null}',
    );
    expect(() => canonicalJson({ big: 1n })).toThrow(TypeError);
  });

  it('is idempotent through JSON.parse', () => {
    const text = canonicalJson({ b: [1, 'two', { c: true }], a: 'é\n"' });
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });

  it('redacts listed keys case-insensitively, and allows shared (non-circular) references', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ Token: 's', inner: { password: 'p', ok: shared }, again: shared }, { redactKeys: new Set(['token', 'password']) })).toBe(
      '{"Token":"[redacted]","again":{"k":1},"inner":{"ok":{"k":1},"password":"[redacted]"}}',
    );
  });

  it('throws a TypeError on cycles', () => {
    const a: Record<string, unknown> = {};
    a.self = [a];
    expect(() => canonicalJson(a)).toThrow(/circular/);
  });
});
