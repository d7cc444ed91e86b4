import { isPatternArray, isPatternObject, type CapabilityInput, type CapabilityPattern, type PatternValue } from './capability-pattern';
import { compileValue } from './compile-pattern';
import { canonicalGlob, globCovers } from './glob';
import { normalizeCapabilities, normalizeCapability } from './normalize-capability';
import { isLiteralString, parseStringPattern } from './pattern-string';

// Subsumption decides grants ("you may only give what you hold") and revocation by pattern, so it
// must be sound: `true` only when every envelope `wanted` allows, one single held capability
// allows too. It need not be complete: when a rule cannot prove inclusion it answers `false`, and
// the grant is refused. Each rule below is a proof of inclusion, with `undefined` standing for a
// missing key (which a negation matches). Kinds and payloads follow the same rules:
//
// | held                  | wanted                         | covered when                                   |
// |-----------------------|--------------------------------|------------------------------------------------|
// | no `payload`          | anything                       | always (for the payload)                       |
// | `payload`             | no `payload`                   | never                                          |
// | any                   | one-of array                   | every element is covered                       |
// | any                   | a single value: literal string,| held matches that value (so `!delete_*` covers |
// |                       | number, boolean, null          | `"read_file"`, `"read_*"` covers `"read_me"`)  |
// | one-of array          | any other                      | some element covers it                         |
// | glob                  | glob                           | glob inclusion (`globCovers`)                  |
// | `*`                   | regex                          | always: a regex only matches strings           |
// | `*`                   | negation, in a kind            | always: a kind is always a string              |
// | negation `!x`         | negation `!y`                  | identical, or glob `y` covers glob `x`         |
// | negation              | object                         | always: an object is not a string              |
// | regex                 | anything but a single value    | identical string only                          |
// | object                | object                         | each held key is present in wanted and covers  |
// |                       |                                | it (extra wanted keys only narrow); a `$`      |
// |                       |                                | JSONPath key only by an identical (deep-equal) |
// |                       |                                | key and value                                  |
// | anything else         |                                | never                                          |
//
// A held glob never covers a payload negation: `"*"` does not match a missing key, `"!x"` does.

/**
 * Whether `held` covers `wanted`: every envelope `wanted` allows is allowed by one capability of
 * `held` (sound, conservative; the rules are in the table above). Inputs are normalised first, so
 * MCPx strings work and invalid input throws `CapabilityError`.
 *
 * @example
 * covers(['mcp/request:tools/*'], 'mcp/request:tools/call:read_file'); // true
 * covers([{ kind: 'mcp/request', payload: { method: 'tools/call' } }], { kind: 'mcp/request' }); // false
 */
export function covers(held: readonly CapabilityInput[], wanted: CapabilityInput): boolean {
  const want = normalizeCapability(wanted);
  return normalizeCapabilities(held).some((have) => capabilityCovers(have, want));
}

/**
 * Whether `held` covers each of `wanted` (the check behind `capability/grant` and `space/invite`).
 *
 * @example
 * coversAll([{ kind: 'mcp/*' }, { kind: 'chat' }], ['chat', 'mcp/proposal:*']); // true
 */
export function coversAll(held: readonly CapabilityInput[], wanted: readonly CapabilityInput[]): boolean {
  const have = normalizeCapabilities(held);
  return normalizeCapabilities(wanted).every((want) => have.some((h) => capabilityCovers(h, want)));
}

function capabilityCovers(held: CapabilityPattern, wanted: CapabilityPattern): boolean {
  if (!valueCovers(held.kind, wanted.kind, true)) return false;
  if (held.payload === undefined) return true;
  return wanted.payload !== undefined && valueCovers(held.payload, wanted.payload, false);
}

// `isKind`: the value is an envelope kind, always a string, never missing.
function valueCovers(held: PatternValue, wanted: PatternValue, isKind: boolean): boolean {
  if (isPatternArray(wanted)) return wanted.every((w) => valueCovers(held, w, isKind));
  if (isSingleValue(wanted)) return compileValue(held)(wanted);
  if (isPatternArray(held)) return held.some((h) => valueCovers(h, wanted, isKind));
  if (typeof held === 'string') return stringCovers(held, wanted, isKind);
  if (isPatternObject(held)) return isPatternObject(wanted) && objectCovers(held, wanted);
  return false;
}

/** A pattern that matches exactly one value, which is then simply tested against `held`. */
function isSingleValue(pattern: PatternValue): boolean {
  return typeof pattern === 'string' ? isLiteralString(pattern) : pattern === null || typeof pattern !== 'object';
}

function stringCovers(held: string, wanted: PatternValue, isKind: boolean): boolean {
  const have = parseStringPattern(held);
  if (typeof wanted !== 'string') return have.type === 'not' && isPatternObject(wanted);
  if (held === wanted) return true;
  const want = parseStringPattern(wanted);
  if (have.type === 'glob') {
    if (want.type === 'glob') return globCovers(have.glob, want.glob);
    return canonicalGlob(have.glob) === '*' && (want.type === 'regex' || isKind);
  }
  if (have.type === 'not' && want.type === 'not' && have.inner.type === 'glob' && want.inner.type === 'glob') {
    // Complements reverse inclusion: "not x" ⊇ "not y" exactly when y ⊇ x.
    return globCovers(want.inner.glob, have.inner.glob);
  }
  return false;
}

function objectCovers(held: { readonly [key: string]: PatternValue }, wanted: { readonly [key: string]: PatternValue }): boolean {
  return Object.keys(held).every(
    (key) => Object.hasOwn(wanted, key) && (key.startsWith('$') ? deepEqual(held[key], wanted[key]) : valueCovers(held[key], wanted[key], false)),
  );
}

function deepEqual(a: PatternValue, b: PatternValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (isPatternArray(a) !== isPatternArray(b)) return false;
  const keys = Object.keys(a);
  const record = (value: object) => value as { readonly [key: string]: PatternValue };
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(record(a)[key], record(b)[key]));
}
