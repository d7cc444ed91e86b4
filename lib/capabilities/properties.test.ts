import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CapabilityMessage, CapabilityPattern, PatternValue } from './capability-pattern';
import { compileCapabilities, compileCapability } from './compile-pattern';
import { covers } from './covers';
import { compileGlob, globCovers, matchGlob } from './glob';
import { normalizeCapability } from './normalize-capability';

// ---------------------------------------------------------------------------------------------
// A deliberately naive reference interpreter of the semantics in index.ts: fresh RegExps built
// from globs, JSONPath by materialising every selected value. It shares no code with the
// implementation, so agreement between the two is evidence, not a tautology.
// ---------------------------------------------------------------------------------------------

function refGlob(glob: string, text: string): boolean {
  const source = [...glob].map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`).test(text);
}

function refRegexParts(text: string): [string, string] | undefined {
  const last = text.lastIndexOf('/');
  if (!text.startsWith('/') || last < 2 || !/^[gimsuy]*$/.test(text.slice(last + 1))) return undefined;
  return [text.slice(1, last), text.slice(last + 1)];
}

function refString(pattern: string, value: unknown): boolean {
  const negated = pattern.startsWith('!');
  const body = negated ? pattern.slice(1) : pattern;
  const regex = refRegexParts(body);
  const positive = typeof value === 'string' && (regex ? new RegExp(regex[0], regex[1]).test(value) : refGlob(body, value));
  return negated ? typeof value !== 'string' || !positive : positive;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function refDescendants(node: unknown): unknown[] {
  const children = Array.isArray(node) ? node : isRecord(node) ? Object.values(node) : [];
  return [node, ...children.flatMap(refDescendants)];
}

function refChildren(node: unknown, token: string): unknown[] {
  if (token === '*' || token === '[*]') return Array.isArray(node) ? node : isRecord(node) ? Object.values(node) : [];
  const index = /^\[(\d+)\]$/.exec(token);
  if (index) return Array.isArray(node) && Number(index[1]) < node.length ? [node[Number(index[1])]] : [];
  const name = /^\['(.*)'\]$/.exec(token)?.[1] ?? token;
  return isRecord(node) && Object.hasOwn(node, name) ? [node[name]] : [];
}

function refSelect(path: string, root: unknown): unknown[] {
  let nodes = [root];
  let descend = false;
  for (const token of path.slice(1).match(/\.\.|\.|\[\d+\]|\[\*\]|\['[^']*'\]|\*|[\w$-]+/g) ?? []) {
    if (token === '.') continue;
    if (token === '..') {
      descend = true;
      continue;
    }
    nodes = (descend ? nodes.flatMap(refDescendants) : nodes).flatMap((n) => refChildren(n, token));
    descend = false;
  }
  return nodes;
}

function refValue(pattern: PatternValue, value: unknown): boolean {
  if (typeof pattern === 'string') return refString(pattern, value);
  if (Array.isArray(pattern)) return pattern.some((p: PatternValue) => refValue(p, value));
  if (pattern === null || typeof pattern !== 'object') return value === pattern;
  if (!isRecord(value)) return false;
  return Object.entries(pattern).every(([key, p]) => {
    if (!key.startsWith('$')) return refValue(p, Object.hasOwn(value, key) ? value[key] : undefined);
    const selected = refSelect(key, value);
    if (selected.length === 0) return refValue(p, undefined);
    const negated = typeof p === 'string' && p.startsWith('!');
    return negated ? selected.every((v) => refValue(p, v)) : selected.some((v) => refValue(p, v));
  });
}

function refCapability(capability: CapabilityPattern, message: CapabilityMessage): boolean {
  return refValue(capability.kind, message.kind) && (capability.payload === undefined || refValue(capability.payload, message.payload));
}

// ---------------------------------------------------------------------------------------------
// Generators over tiny alphabets, so that patterns and messages collide often.
// ---------------------------------------------------------------------------------------------

const isValid = (capability: unknown): boolean => {
  try {
    normalizeCapability(capability);
    return true;
  } catch {
    return false;
  }
};
const isSpecialString = (s: string) => s.startsWith('!') || refRegexParts(s) !== undefined;

const textUnit = fc.constantFrom('a', 'b', '/');
const text = fc.string({ unit: textUnit, maxLength: 4 });
const glob = fc.string({ unit: fc.constantFrom('a', 'b', '/', '*', '?'), maxLength: 5 });
const regex = fc.constantFrom('/^a/', '/b$/', '/a.b/', '/^$/', '/A/i', '/a/g', '/^a/y', '/\\//', '/^(a|b)+$/');
const stringPattern = fc
  .oneof({ weight: 4, arbitrary: glob }, { weight: 1, arbitrary: regex }, { weight: 2, arbitrary: fc.oneof(glob, regex).map((s) => `!${s}`) })
  .filter((s) => isValid({ kind: 'k', payload: s }));
const scalar = fc.constantFrom<PatternValue>(0, 1, true, false, null);
const PATH_KEYS = ['$.a', '$..b', '$.a[0]', '$.a[*].b', '$.*', "$['c']"];
const patternKey = fc.constantFrom('a', 'b', 'c', ...PATH_KEYS);

const { pattern } = fc.letrec<{ pattern: PatternValue; array: PatternValue[]; object: Record<string, PatternValue> }>((tie) => ({
  pattern: fc.oneof({ maxDepth: 3, depthSize: 'small' }, stringPattern, scalar, tie('array'), tie('object')),
  array: fc.array(tie('pattern'), { minLength: 1, maxLength: 3 }),
  object: fc.dictionary(patternKey, tie('pattern'), { maxKeys: 3 }),
}));

const { value } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ maxDepth: 3, depthSize: 'small' }, text, fc.constantFrom(0, 1, 2, true, false, null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
}));
const record = fc.dictionary(fc.constantFrom('a', 'b', 'c'), value, { maxKeys: 2 });

const kindText = fc.string({ unit: fc.constantFrom('m', 'c', '/'), minLength: 1, maxLength: 3 });
const kindGlob = fc.string({ unit: fc.constantFrom('m', 'c', '/', '*', '?'), minLength: 1, maxLength: 3 });
const kindString = fc.oneof({ weight: 5, arbitrary: kindGlob }, fc.constantFrom('/^m/', '!m*', '!/c$/'));
const kindPattern = fc.oneof({ weight: 3, arbitrary: kindString }, fc.array(kindString, { minLength: 1, maxLength: 3 }));

const capability: fc.Arbitrary<CapabilityPattern> = fc.record({ kind: kindPattern, payload: pattern }, { requiredKeys: ['kind'] }).filter(isValid);
const message: fc.Arbitrary<CapabilityMessage> = fc.record({ kind: kindText, payload: value }, { requiredKeys: ['kind'] });

/** Values biased to match `p` (a negation gets anything), so implications are rarely vacuous. */
function instance(p: PatternValue): fc.Arbitrary<unknown> {
  if (typeof p === 'string') {
    if (p.startsWith('!')) return fc.oneof(value, fc.constant(undefined));
    if (refRegexParts(p)) return fc.constantFrom('a', 'ab', 'b', 'a/b', '', 'A', 'ba', 'aab', '/');
    const parts = [...p].map((c) => (c === '*' ? text : c === '?' ? textUnit : fc.constant(c)));
    return fc.tuple(...parts).map((chosen) => chosen.join(''));
  }
  if (Array.isArray(p)) return fc.oneof(...p.map(instance));
  if (p === null || typeof p !== 'object') return fc.constant(p);
  const entries = Object.entries(p);
  return fc.tuple(fc.tuple(...entries.map(([, q]) => instance(q))), record).map(([chosen, extra]) => {
    const result: Record<string, unknown> = { ...extra };
    entries.forEach(([key], i) => {
      if (chosen[i] !== undefined) place(result, key, chosen[i]);
    });
    return result;
  });
}

/** Puts `v` where the pattern key looks: a plain key, or an easy spot for a JSONPath key. */
function place(target: Record<string, unknown>, key: string, v: unknown): void {
  const spots: Record<string, () => void> = {
    '$.a': () => (target.a = v),
    '$..b': () => (target.b = v),
    '$.a[0]': () => (target.a = [v]),
    '$.a[*].b': () => (target.a = [{ b: v }]),
    '$.*': () => (target.c = v),
    "$['c']": () => (target.c = v),
  };
  if (spots[key]) spots[key]();
  else target[key] = v;
}

const messageFor = (c: CapabilityPattern): fc.Arbitrary<CapabilityMessage> =>
  fc
    .tuple(instance(c.kind as PatternValue), c.payload === undefined ? value : instance(c.payload))
    .map(([kind, payload]) => ({ kind: typeof kind === 'string' ? kind : 'm', payload }));

/** Patterns that every instance of `narrow(p)` is meant to be covered by `p` (see the covers table). */
function narrow(p: PatternValue): fc.Arbitrary<PatternValue> {
  if (typeof p === 'string') {
    if (isSpecialString(p)) return fc.constant(p);
    const parts = [...p].map((c) =>
      c === '*' ? fc.constantFrom('*', '', 'a', '?', 'a*', '*b', '**', '?*?') : c === '?' ? fc.constantFrom('?', 'a', '/') : fc.constant(c),
    );
    return fc.tuple(...parts).map((chosen) => {
      const narrowed = chosen.join('');
      return isSpecialString(narrowed) ? p : narrowed; // stay a glob
    });
  }
  if (Array.isArray(p)) return fc.subarray([...p], { minLength: 1 }).chain((kept) => fc.tuple(...kept.map(narrow)));
  if (p === null || typeof p !== 'object') return fc.constant(p);
  const entries = Object.entries(p);
  const extra = fc.option(fc.tuple(patternKey, pattern), { nil: undefined });
  return fc.tuple(fc.tuple(...entries.map(([key, q]) => (key.startsWith('$') ? fc.constant(q) : narrow(q)))), extra).map(([chosen, added]) => {
    const result: Record<string, PatternValue> = {};
    entries.forEach(([key], i) => {
      result[key] = chosen[i];
    });
    if (added && !Object.hasOwn(result, added[0])) result[added[0]] = added[1];
    return result;
  });
}

const narrowCapability = (c: CapabilityPattern): fc.Arbitrary<CapabilityPattern> =>
  fc.tuple(narrow(c.kind as PatternValue), c.payload === undefined ? fc.option(pattern, { nil: undefined }) : narrow(c.payload)).map(([kind, payload]) => {
    const narrowed = (payload === undefined ? { kind } : { kind, payload }) as CapabilityPattern;
    return isValid(narrowed) ? narrowed : c; // e.g. a kind narrowed to ""
  });

const RUNS = { numRuns: 2_000 };

// ---------------------------------------------------------------------------------------------

describe('law 1: every pattern covers itself', () => {
  it('covers([p], p) for every valid capability, regexes, negations and $ keys included', () => {
    fc.assert(
      fc.property(capability, (c) => covers([c], c)),
      RUNS,
    );
  });
});

describe('law 2: covers is sound', () => {
  it('if covers([A], B) and B allows m, then A allows m', () => {
    let nonVacuous = 0;
    const pairs = capability.chain((a) =>
      fc
        .tuple(fc.constant(a), fc.oneof({ weight: 3, arbitrary: narrowCapability(a) }, capability))
        .chain(([held, wanted]) => fc.tuple(fc.constant(held), fc.constant(wanted), fc.oneof({ weight: 3, arbitrary: messageFor(wanted) }, message))),
    );
    fc.assert(
      fc.property(pairs, ([held, wanted, m]) => {
        if (!covers([held], wanted) || !compileCapability(wanted)(m)) return true;
        nonVacuous++;
        return compileCapability(held)(m);
      }),
      RUNS,
    );
    expect(nonVacuous).toBeGreaterThan(RUNS.numRuns / 5);
  });

  it('narrowing (a glob made more specific, a one-of made smaller, keys added) is always covered', () => {
    const pairs = capability.chain((a) => fc.tuple(fc.constant(a), narrowCapability(a)));
    fc.assert(
      fc.property(pairs, ([held, wanted]) => covers([held], wanted)),
      RUNS,
    );
  });

  it('globCovers(h, w) implies every string w matches, h matches', () => {
    let nonVacuous = 0;
    const triples = glob.chain((h) =>
      fc
        .tuple(fc.constant(h), fc.oneof(narrow(h) as fc.Arbitrary<string>, glob))
        .chain(([held, wanted]) => fc.tuple(fc.constant(held), fc.constant(wanted), fc.oneof(instance(wanted) as fc.Arbitrary<string>, text))),
    );
    fc.assert(
      fc.property(triples, ([held, wanted, s]) => {
        if (!globCovers(held, wanted) || !refGlob(wanted, s)) return true;
        nonVacuous++;
        return refGlob(held, s);
      }),
      RUNS,
    );
    expect(nonVacuous).toBeGreaterThan(RUNS.numRuns / 5);
  });
});

describe('law 3: {kind: "*"} is everything', () => {
  it('matches every message', () => {
    const everything = compileCapabilities([{ kind: '*' }]);
    const anyMessage = fc.record({ kind: fc.string(), payload: value }, { requiredKeys: ['kind'] });
    fc.assert(
      fc.property(anyMessage, (m) => everything.matches(m)),
      RUNS,
    );
  });

  it('covers every capability', () => {
    fc.assert(
      fc.property(capability, (c) => covers([{ kind: '*' }], c)),
      RUNS,
    );
  });
});

describe('law 4: compiled matching equals the reference semantics', () => {
  const cases = capability.chain((c) => fc.tuple(fc.constant(c), fc.oneof(messageFor(c), message)));

  it('compileCapability agrees with the reference, and answers the same twice', () => {
    let matched = 0;
    fc.assert(
      fc.property(cases, ([c, m]) => {
        const match = compileCapability(c);
        const expected = refCapability(c, m);
        if (expected) matched++;
        return match(m) === expected && match(m) === expected;
      }),
      RUNS,
    );
    expect(matched).toBeGreaterThan(RUNS.numRuns / 5);
    expect(matched).toBeLessThan(RUNS.numRuns);
  });

  it('compileCapabilities.firstMatch (kind-indexed) agrees with a linear scan of the reference', () => {
    const lists = fc
      .array(capability, { maxLength: 6 })
      .chain((list) => fc.tuple(fc.constant(list), list.length > 0 ? fc.oneof(message, fc.constantFrom(...list).chain(messageFor)) : message));
    fc.assert(
      fc.property(lists, ([list, m]) => {
        const compiled = compileCapabilities(list);
        const expected = list.findIndex((c) => refCapability(c, m));
        return compiled.firstMatch(m) === expected && compiled.matches(m) === expected >= 0;
      }),
      RUNS,
    );
  });

  it('glob fast paths and the general matcher agree with the reference on longer strings', () => {
    const longGlob = fc.string({ unit: fc.constantFrom('a', 'b', '*', '?'), maxLength: 8 });
    const longText = fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 12 });
    fc.assert(
      fc.property(longGlob, longText, (g, s) => compileGlob(g)(s) === refGlob(g, s) && matchGlob(g, s) === refGlob(g, s)),
      { numRuns: 5_000 },
    );
  });
});

describe('law 5: MCPx shorthand keeps its meaning', () => {
  // MCPx matches a pattern against the kind string "KIND:METHOD:CONTEXT" (or a prefix of it, for
  // shorter patterns). For shorthand whose only wildcard is a trailing `*` on the last segment,
  // that must agree with matching the normalised object against kind, method and name/uri.
  const literal = {
    kind: ['mcp/request', 'mcp/proposal', 'mcp/response', 'chat'],
    method: ['tools/call', 'tools/list', 'resources/read', 'prompts/get'],
    context: ['read_file', 'read_dir', 'write_file', 'file:///a', 'file:///b/c'],
  };
  const lastSegment = (options: string[]) =>
    fc.oneof(
      fc.constantFrom(...options),
      fc.constantFrom(...options).chain((o) => fc.nat(o.length).map((n) => `${o.slice(0, n)}*`)),
    );
  // `mcp/response:METHOD` is refused (a response carries no method), so only the other kinds take more segments.
  const methodKinds = literal.kind.filter((kind) => kind !== 'mcp/response');
  const shorthand = fc.oneof(
    lastSegment(literal.kind),
    fc.tuple(fc.constantFrom(...methodKinds), lastSegment(literal.method)).map((s) => s.join(':')),
    fc.tuple(fc.constantFrom(...methodKinds), fc.constantFrom(...literal.method), lastSegment(literal.context)).map((s) => s.join(':')),
  );
  const mcpMessage = fc
    .tuple(fc.constantFrom(...literal.kind), fc.constantFrom(...literal.method), fc.constantFrom(...literal.context))
    .map(([kind, method, context]) => ({
      kind,
      payload: { jsonrpc: '2.0', id: 1, method, params: { [method.startsWith('resources/') ? 'uri' : 'name']: context } },
    }));

  it('normalised matching equals MCPx kind-string matching', () => {
    let matched = 0;
    fc.assert(
      fc.property(shorthand, mcpMessage, (s, m) => {
        const { method } = m.payload;
        const context = Object.values(m.payload.params)[0];
        const mcpx = [m.kind, `${m.kind}:${method}`, `${m.kind}:${method}:${context}`].some((kind) => refGlob(s, kind));
        if (mcpx) matched++;
        return compileCapability(s)(m) === mcpx;
      }),
      RUNS,
    );
    expect(matched).toBeGreaterThan(RUNS.numRuns / 10);
  });

  it.each([
    ['mcp/*', true],
    ['mcp/request:*', true],
    ['mcp/request:tools/*', true],
    ['mcp/request:tools/call', true],
    ['mcp/request:tools/call:read_*', true],
    ['mcp/response:*', false],
    ['mcp/request:resources/*', false],
    ['mcp/request:tools/call:write_*', false],
    ['chat', false],
  ])('the spec example: a tools/call request for read_file %s → %s', (s, allowed) => {
    const m = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
    expect(compileCapability(s)(m)).toBe(allowed);
  });
});
