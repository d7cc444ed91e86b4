import { CapabilityError } from './capability-error';
import type { CapabilityPattern, PatternValue } from './capability-pattern';
import { parseJsonPath } from './json-path';
import { parseStringPattern } from './pattern-string';

// Real capabilities are a few levels deep; the cap turns a runaway (or cyclic) input into an
// error instead of a stack overflow, and bounds how deep the compiled matcher ever recurses.
const MAX_DEPTH = 32;

type Path = (string | number)[];

/** Keys a capability object may carry besides `kind` and `payload`: labels for people, never matched. */
const ANNOTATION_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'description']);

/**
 * Validates one capability and returns a fresh, deeply frozen copy in object form; every later
 * step (compile, covers, welcome messages) relies on this having been done. Accepts:
 * - a pattern object `{kind, payload?}`, optionally annotated with `id`, `name` or `description` (kept, not
 *   matched); any other key is refused, since a typo like `paylaod` would otherwise grant the whole kind;
 * - MCPx shorthand `KIND[:METHOD[:CONTEXT]]`: METHOD constrains `payload.method`, CONTEXT
 *   constrains `payload.params.uri` for `resources/...` methods and `payload.params.name`
 *   otherwise; a segment that is just `*` constrains nothing. The string is split at its first two
 *   colons, so a CONTEXT may itself contain colons (`file:///x`). `mcp/response:METHOD` is refused:
 *   responses carry no method, so it could never match.
 *
 * Throws `CapabilityError` (with the `path` of the offending value) for anything else, for a kind
 * that is not a non-empty string or array of them, an empty one-of array, a non-finite number,
 * an invalid `/regex/`, an invalid `$` JSONPath key, or nesting deeper than 32 levels.
 *
 * @example
 * normalizeCapability('mcp/request:tools/call:read_*');
 * // { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_*' } } }
 * normalizeCapability('mcp/proposal:*'); // { kind: 'mcp/proposal' }
 */
export function normalizeCapability(input: unknown): CapabilityPattern {
  if (typeof input === 'string') return fromMcpx(input);
  if (!isPlainObject(input)) {
    throw new CapabilityError(`a capability must be an object with "kind" or an MCPx string like "mcp/request:tools/*", not ${describe(input)}`);
  }
  if (!Object.hasOwn(input, 'kind')) throw new CapabilityError('a capability needs a "kind"', ['kind']);
  const result: Record<string, unknown> = {};
  define(result, 'kind', normalizeKind(input.kind));
  if (Object.hasOwn(input, 'payload') && input.payload !== undefined) {
    define(result, 'payload', copy(input.payload, ['payload'], 1, true));
  }
  for (const key of Object.keys(input)) {
    if (key === 'kind' || key === 'payload') continue;
    if (!ANNOTATION_KEYS.has(key)) {
      throw new CapabilityError(
        `unknown key "${key}": a capability has "kind", "payload" and optionally ${[...ANNOTATION_KEYS].map((k) => `"${k}"`).join(', ')}`,
        [key],
      );
    }
    define(result, key, copy(input[key], [key], 1, false));
  }
  return Object.freeze(result) as CapabilityPattern;
}

/**
 * `normalizeCapability` over a list; an error's `path` starts with the index of the bad entry.
 *
 * @example
 * normalizeCapabilities(['chat', { kind: 'mcp/*' }]); // [{ kind: 'chat' }, { kind: 'mcp/*' }]
 */
export function normalizeCapabilities(list: unknown): CapabilityPattern[] {
  if (!Array.isArray(list)) throw new CapabilityError(`capabilities must be an array, not ${describe(list)}`);
  return list.map((input, index) => {
    try {
      return normalizeCapability(input);
    } catch (e) {
      if (e instanceof CapabilityError) throw new CapabilityError(e.message, [index, ...e.path]);
      throw e;
    }
  });
}

function fromMcpx(text: string): CapabilityPattern {
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  const kind = first < 0 ? text : text.slice(0, first);
  const method = first < 0 ? undefined : text.slice(first + 1, second < 0 ? undefined : second);
  const context = second < 0 ? undefined : text.slice(second + 1);
  if (kind === '' || method === '' || context === '') {
    throw new CapabilityError(`MCPx capability "${text}" has an empty segment; expected KIND[:METHOD[:CONTEXT]]`);
  }
  for (const segment of [kind, method, context]) if (segment !== undefined) checkString(segment, []);
  const payload: Record<string, PatternValue> = {};
  if (method !== undefined && method !== '*') payload.method = method;
  if (context !== undefined && context !== '*') {
    payload.params = Object.freeze({ [method?.startsWith('resources/') ? 'uri' : 'name']: context });
  }
  // MCPx wrote it, but a response has no method or params (it names its request by correlation_id): it would
  // silently never match. Telling which request it answers would cost a lookup per response, so it is refused.
  if (kind === 'mcp/response' && Object.keys(payload).length > 0) {
    throw new CapabilityError(
      `MCPx capability "${text}" would never match: an mcp/response carries no method (it answers its request by correlation_id); write "mcp/response"`,
    );
  }
  return Object.freeze(Object.keys(payload).length > 0 ? { kind, payload: Object.freeze(payload) } : { kind });
}

function normalizeKind(kind: unknown): string | readonly string[] {
  const problem = 'a kind must be a non-empty pattern string or a non-empty array of them';
  if (typeof kind === 'string') {
    if (kind === '') throw new CapabilityError(problem, ['kind']);
    checkString(kind, ['kind']);
    return kind;
  }
  if (!Array.isArray(kind) || kind.length === 0) throw new CapabilityError(`${problem}, not ${describe(kind)}`, ['kind']);
  kind.forEach((k: unknown, i) => {
    if (typeof k !== 'string' || k === '') throw new CapabilityError(`${problem}, not ${describe(k)}`, ['kind', i]);
    checkString(k, ['kind', i]);
  });
  return Object.freeze([...(kind as string[])]);
}

/** Deep-copies a JSON value (checking pattern syntax when `asPattern`) into frozen objects. */
function copy(value: unknown, path: Path, depth: number, asPattern: boolean): PatternValue {
  if (depth > MAX_DEPTH) throw new CapabilityError(`nested deeper than ${MAX_DEPTH} levels`, path);
  switch (typeof value) {
    case 'string':
      if (asPattern) checkString(value, path);
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new CapabilityError(`${value} is not a JSON number`, path);
      return value;
    case 'boolean':
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    if (asPattern && value.length === 0) throw new CapabilityError('an empty one-of array matches nothing', path);
    return Object.freeze(value.map((item: unknown, i) => copy(item, [...path, i], depth + 1, asPattern)));
  }
  if (!isPlainObject(value)) throw new CapabilityError(`${describe(value)} is not a JSON value`, path);
  const result: Record<string, PatternValue> = {};
  for (const key of Object.keys(value)) {
    if (asPattern && key.startsWith('$')) {
      try {
        parseJsonPath(key);
      } catch (e) {
        throw new CapabilityError(`invalid JSONPath key: ${(e as Error).message}`, [...path, key]);
      }
    }
    define(result, key, copy(value[key], [...path, key], depth + 1, asPattern));
  }
  return Object.freeze(result);
}

/** Validates a pattern string: only a `/regex/` (plain or negated) can be malformed. */
function checkString(text: string, path: Path): void {
  const parsed = parseStringPattern(text);
  const positive = parsed.type === 'not' ? parsed.inner : parsed;
  if (positive.type !== 'regex') return;
  try {
    new RegExp(positive.source, positive.flags);
  } catch (e) {
    throw new CapabilityError(`invalid regular expression ${JSON.stringify(text)}: ${(e as Error).message}`, path);
  }
}

// Plain assignment of a "__proto__" key would set the prototype instead of a property.
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
  return `a ${typeof value}`;
}
