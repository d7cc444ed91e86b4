/** JSON types a schema's `type` may name. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The JSON Schema subset tools declare their arguments with. Other keywords (`description`, `default`, `$schema`,
 * ...) are allowed and ignored, so any real schema can be passed; only these are enforced.
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

/**
 * Checks `value` against the subset of JSON Schema that tool arguments use: `type` (one or several), `required`,
 * `properties`, `additionalProperties` (false, or a schema for the extra keys), `enum`, `items`,
 * `minLength`/`maxLength` (in code points) and `minimum`/`maximum`. Returns every issue found; empty means valid.
 *
 * @example
 * validateJsonSchema({ type: 'object', required: ['a'], properties: { a: { type: 'number' } } }, { a: 'x' });
 * // [{ path: ['a'], message: 'expected number, got string' }]
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown, path: (string | number)[] = []): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const fail = (message: string, at = path) => issues.push({ path: at, message });

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type))) {
      fail(`expected ${types.join(' or ')}, got ${describeType(value)}`);
      return issues; // the other keywords would only repeat the type mismatch
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((allowed) => jsonEqual(allowed, value))) {
    fail(`must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) fail(`must be at least ${schema.minLength} characters long`);
    if (schema.maxLength !== undefined && length > schema.maxLength) fail(`must be at most ${schema.maxLength} characters long`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`must be ≥ ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`must be ≤ ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => issues.push(...validateJsonSchema(schema.items!, item, [...path, i])));
  }
  if (isPlainObject(value)) {
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(value, key)) fail('is required', [...path, key]);
    }
    for (const [key, item] of Object.entries(value)) {
      const propertySchema = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      if (propertySchema) issues.push(...validateJsonSchema(propertySchema, item, [...path, key]));
      else if (schema.additionalProperties === false) fail('is not an allowed property', [...path, key]);
      else if (typeof schema.additionalProperties === 'object') issues.push(...validateJsonSchema(schema.additionalProperties, item, [...path, key]));
    }
  }
  return issues;
}

function hasType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
    case 'boolean':
      return typeof value === type;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value === undefined) return 'nothing';
  return typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values (key order does not matter), as `enum` requires. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}
