/**
 * Any JSON value, read as a pattern: strings are globs, `!negations` or `/regexes/`, arrays are
 * one-of, objects match field by field, other scalars compare by equality (see `index.ts`).
 *
 * @example
 * const tools: PatternValue = { method: 'tools/call', params: { name: ['read_*', 'list_*'] } };
 */
export type PatternValue = string | number | boolean | null | readonly PatternValue[] | { readonly [key: string]: PatternValue };

/** Narrows a pattern to a one-of array (`Array.isArray` alone does not narrow readonly arrays). */
export function isPatternArray(pattern: PatternValue): pattern is readonly PatternValue[] {
  return Array.isArray(pattern);
}

/** Narrows a pattern to an object pattern. */
export function isPatternObject(pattern: PatternValue): pattern is { readonly [key: string]: PatternValue } {
  return typeof pattern === 'object' && pattern !== null && !Array.isArray(pattern);
}

/**
 * A capability (MEW v0.4 §4.1): a pattern for an envelope's `kind` and, optionally, its `payload`.
 * Other fields are kept as given and ignored by matching.
 *
 * @example
 * const readOnly: CapabilityPattern = { kind: 'mcp/request', payload: { method: 'resources/read' } };
 */
export type CapabilityPattern = {
  kind: string | readonly string[];
  payload?: PatternValue;
  [key: string]: unknown;
};

/**
 * What callers may hand to `normalizeCapability`: a pattern object, or MCPx shorthand.
 *
 * @example
 * const inputs: CapabilityInput[] = ['chat', 'mcp/request:tools/*', { kind: 'mcp/response' }];
 */
export type CapabilityInput = CapabilityPattern | string;

/**
 * The part of an envelope a capability looks at; every other envelope field is ignored.
 *
 * @example
 * const message: CapabilityMessage = { kind: 'mcp/request', payload: { method: 'tools/list' } };
 */
export type CapabilityMessage = {
  readonly kind: string;
  readonly payload?: unknown;
};
