import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';

/** JSON types a schema's `type` may name. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * A JSON Schema, as tools declare their arguments (MCP `inputSchema`). Every keyword of draft 2020-12 is enforced
 * (`pattern`, `oneOf`/`anyOf`/`allOf`, `$ref`/`$defs`, `const`, `minItems`, formats…); the common ones are typed here.
 */
export interface JsonSchema {
  type?: JsonType | JsonType[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  [keyword: string]: unknown;
}

/** One way a value fails its schema; `path` leads from the validated value to the offending part. */
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}

/** Draft used for schemas that name none; 2020-12 also reads draft-07's `definitions` through `$ref`. */
const DEFAULT_DRAFT = '2020-12';

/**
 * Keywords that only report that something beneath them failed: the failure itself is reported where it is, so
 * these would repeat it one level up.
 */
const APPLICATOR_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'allOf',
  '$ref',
  '$dynamicRef',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'if',
  'then',
  'else',
]);

/** A failure inside one alternative of `oneOf`/`anyOf`/`not`: the alternative's own keyword says it all. */
const INSIDE_ALTERNATIVE = /\/(?:oneOf|anyOf|not)\/(?:\d+\/)?/;

// Compiling a schema walks it once; tools validate every call against the same schema object.
const compiled = new WeakMap<object, Validator>();

function validatorFor(schema: JsonSchema | boolean): Validator {
  if (typeof schema === 'boolean') return new Validator(schema, DEFAULT_DRAFT, false);
  let validator = compiled.get(schema);
  if (!validator) {
    const draft = typeof schema.$schema === 'string' && schema.$schema.includes('draft-07') ? '7' : DEFAULT_DRAFT;
    validator = new Validator(schema as Schema, draft, false);
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * Checks `value` against a JSON Schema with `@cfworker/json-schema` (complete, and free of `eval`, so the browser
 * runs the very same check as the tool). Returns every failure where it happens, with its path; empty means valid.
 *
 * @example
 * validateJsonSchema({ type: 'object', required: ['a'], properties: { a: { type: 'number' } } }, { a: 'x' });
 * // [{ path: ['a'], message: 'expected number, got string' }]
 */
export function validateJsonSchema(schema: JsonSchema | boolean, value: unknown): SchemaIssue[] {
  // Not a JSON value (a caller's bug, or a missing field handed in): the validator would throw.
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    return [{ path: [], message: `expected a JSON value, got ${value === undefined ? 'nothing' : typeof value}` }];
  }
  const { valid, errors } = validatorFor(schema).validate(value);
  if (valid) return [];
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const unit of errors) {
    const issue = toIssue(unit);
    if (!issue) continue;
    const key = `${issue.path.join('\u0000')}\u0001${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(unit: OutputUnit): SchemaIssue | undefined {
  if (APPLICATOR_KEYWORDS.has(unit.keyword) || unit.keyword === 'false') return undefined;
  if (INSIDE_ALTERNATIVE.test(unit.keywordLocation.slice(unit.keywordLocation.indexOf('/')))) return undefined;
  const path = pointerToPath(unit.instanceLocation);
  const property = /Property "(.*)" does not match|required property "(.*)"/.exec(unit.error);
  switch (unit.keyword) {
    case 'required':
      return { path: [...path, property?.[2] ?? '?'], message: 'is required' };
    case 'additionalProperties':
      return { path: [...path, property?.[1] ?? '?'], message: 'is not an allowed property' };
    case 'type': {
      const [, got, expected] = /Instance type "(.*)" is invalid\. Expected "(.*)"/.exec(unit.error) ?? [];
      return { path, message: got ? `expected ${expected.replaceAll('", "', ' or ')}, got ${got}` : unit.error };
    }
    default:
      return { path, message: sentence(unit.error) };
  }
}

/** `#/items/0/name` → `['items', 0, 'name']` (JSON Pointer, RFC 6901). */
function pointerToPath(pointer: string): (string | number)[] {
  const body = pointer.replace(/^#\/?/, '');
  if (!body) return [];
  return body.split('/').map((segment) => {
    const key = decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
    return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
  });
}

/** The validator's messages end with a full stop and start with "Instance"; ours read after a path. */
function sentence(message: string): string {
  return message.replace(/\.$/, '').replace(/^Instance /, '');
}
