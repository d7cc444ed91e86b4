import { isPatternArray, type CapabilityInput, type CapabilityMessage, type CapabilityPattern, type PatternValue } from './capability-pattern';
import { compileGlob, isLiteralGlob } from './glob';
import { findSelected, FOUND, NOT_FOUND, NOTHING_SELECTED, parseJsonPath, type JsonPathStep } from './json-path';
import { normalizeCapabilities, normalizeCapability } from './normalize-capability';
import { isLiteralString, parseStringPattern, type PositiveStringPattern } from './pattern-string';

// Everything here runs once per capability-set change; the closures it returns run once per
// envelope on the gateway's hot path. They never parse, never throw and allocate nothing of
// their own, except the walk of a `..` JSONPath key, which needs a work list. `undefined` stands for a
// missing value throughout: JSON has no undefined, so the two cannot be told apart anyway.

/** A compiled pattern for one value; `undefined` means "the key is missing". */
export type ValueMatcher = (value: unknown) => boolean;

/** A compiled capability: does it allow this envelope? */
export type MessageMatcher = (message: CapabilityMessage) => boolean;

/**
 * A compiled capability set, built once per change of the set.
 *
 * @example
 * const caps = compileCapabilities(['chat', 'mcp/request:tools/*']);
 * caps.matches({ kind: 'mcp/request', payload: { method: 'tools/call' } }); // true
 * caps.firstMatch({ kind: 'chat' }); // 0
 */
export interface CompiledCapabilities {
  /** The normalised patterns in the order given (frozen); `firstMatch` returns indexes into it. */
  readonly patterns: readonly CapabilityPattern[];
  /** Whether some capability allows the message. */
  matches(message: CapabilityMessage): boolean;
  /** Index of the first capability that allows the message, or -1. */
  firstMatch(message: CapabilityMessage): number;
}

/**
 * Compiles a value pattern (assumed normalised: see `normalizeCapability`) into a matcher.
 *
 * @example
 * const name = compileValue(['read_*', 'list_*']);
 * name('read_file'); // true
 */
export function compileValue(pattern: PatternValue): ValueMatcher {
  if (typeof pattern === 'string') return compileString(pattern);
  if (pattern === null || typeof pattern !== 'object') return (value) => value === pattern;
  if (isPatternArray(pattern)) return compileOneOf(pattern);
  return compileObject(pattern);
}

/**
 * Compiles one capability (normalising it first, so invalid input throws `CapabilityError`).
 *
 * @example
 * const canCallReaders = compileCapability('mcp/request:tools/call:read_*');
 * canCallReaders({ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } }); // true
 */
export function compileCapability(input: CapabilityInput): MessageMatcher {
  const { full } = compileParts(normalizeCapability(input));
  return (message) => typeof message === 'object' && message !== null && full(message);
}

/**
 * Compiles a capability set (normalising it first; a `CapabilityError` path starts with the
 * index). Capabilities whose kind is literal (`"chat"`, `["chat", "mcp/response"]`) are indexed by
 * kind, so an envelope is only tested against the capabilities of its exact kind plus those with
 * a wildcard, negated or regex kind, still in the original order.
 *
 * @example
 * const caps = compileCapabilities([{ kind: 'mcp/*' }, { kind: 'chat' }]);
 * caps.firstMatch({ kind: 'chat', payload: { text: 'hi' } }); // 1
 */
export function compileCapabilities(inputs: readonly CapabilityInput[]): CompiledCapabilities {
  const patterns: readonly CapabilityPattern[] = Object.freeze(normalizeCapabilities(inputs));
  const parts = patterns.map(compileParts);
  const byKind = new Map<string, Candidate[]>();
  for (const part of parts) for (const kind of part.literalKinds ?? []) byKind.set(kind, []);
  const wildcard: Candidate[] = [];
  parts.forEach((part, index) => {
    if (part.literalKinds) {
      // The bucket already pins the kind, so only the payload is left to test.
      for (const kind of part.literalKinds) byKind.get(kind)!.push({ index, test: part.payloadOnly });
    } else {
      const candidate = { index, test: part.full };
      wildcard.push(candidate);
      for (const bucket of byKind.values()) bucket.push(candidate);
    }
  });

  const firstMatch = (message: CapabilityMessage): number => {
    if (typeof message !== 'object' || message === null) return -1;
    const candidates = byKind.get(message.kind) ?? wildcard;
    for (let i = 0; i < candidates.length; i++) {
      if (candidates[i].test(message)) return candidates[i].index;
    }
    return -1;
  };
  return { patterns, firstMatch, matches: (message) => firstMatch(message) >= 0 };
}

type Candidate = { readonly index: number; readonly test: MessageMatcher };

type CompiledParts = {
  /** Kind and payload test. */
  readonly full: MessageMatcher;
  /** Payload test alone, for when the kind is known to match. */
  readonly payloadOnly: MessageMatcher;
  /** The distinct kinds, when the kind pattern is literal (one string or a one-of of them). */
  readonly literalKinds: readonly string[] | undefined;
};

function compileParts(pattern: CapabilityPattern): CompiledParts {
  const kind = compileValue(pattern.kind);
  const kinds = typeof pattern.kind === 'string' ? [pattern.kind] : pattern.kind;
  const literalKinds = kinds.every(isLiteralString) ? [...new Set(kinds)] : undefined;
  if (pattern.payload === undefined) {
    return { full: (message) => kind(message.kind), payloadOnly: () => true, literalKinds };
  }
  const payload = compileValue(pattern.payload);
  return {
    full: (message) => kind(message.kind) && payload(message.payload),
    payloadOnly: (message) => payload(message.payload),
    literalKinds,
  };
}

function compileString(text: string): ValueMatcher {
  const parsed = parseStringPattern(text);
  if (parsed.type === 'glob' && isLiteralGlob(parsed.glob)) return (value) => value === text;
  if (parsed.type === 'not') {
    // "Not that": a missing key or a non-string value is not that string either.
    const inner = compilePositive(parsed.inner);
    return (value) => typeof value !== 'string' || !inner(value);
  }
  const test = compilePositive(parsed);
  return (value) => typeof value === 'string' && test(value);
}

function compilePositive(pattern: PositiveStringPattern): (text: string) => boolean {
  if (pattern.type === 'glob') return compileGlob(pattern.glob);
  const regex = new RegExp(pattern.source, pattern.flags);
  // `test` on a /g or /y regex starts at, and moves, `lastIndex`: reset it or results alternate.
  if (regex.global || regex.sticky) {
    return (text) => {
      regex.lastIndex = 0;
      return regex.test(text);
    };
  }
  return (text) => regex.test(text);
}

function compileOneOf(items: readonly PatternValue[]): ValueMatcher {
  const matchers = items.map(compileValue);
  if (matchers.length === 1) return matchers[0];
  return (value) => {
    for (let i = 0; i < matchers.length; i++) if (matchers[i](value)) return true;
    return false;
  };
}

type FieldTest = (object: Record<string, unknown>) => boolean;

function compileObject(pattern: { readonly [key: string]: PatternValue }): ValueMatcher {
  const fields: FieldTest[] = Object.keys(pattern).map((key) => {
    const test = compileValue(pattern[key]);
    if (key.startsWith('$')) return compileJsonPathField(parseJsonPath(key), test, isNegation(pattern[key]));
    // Own properties only: `{"constructor": "*"}` must not match what every object inherits.
    return (object) => test(Object.hasOwn(object, key) ? object[key] : undefined);
  });
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    for (let i = 0; i < fields.length; i++) if (!fields[i](value as Record<string, unknown>)) return false;
    return true;
  };
}

// A `$` key holds if some selected value matches; for a negation, if none matches the negated
// pattern, i.e. every selected value satisfies the negation. Selecting nothing is a missing key.
function compileJsonPathField(steps: readonly JsonPathStep[], test: ValueMatcher, negated: boolean): FieldTest {
  return (object) => {
    const found = findSelected(object, steps, test, !negated);
    if (found === NOTHING_SELECTED) return test(undefined);
    return negated ? found === NOT_FOUND : found === FOUND;
  };
}

function isNegation(pattern: PatternValue): boolean {
  return typeof pattern === 'string' && pattern.startsWith('!');
}
