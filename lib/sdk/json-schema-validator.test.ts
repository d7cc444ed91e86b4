import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJsonSchema, type JsonSchema } from './json-schema-validator';

const person: JsonSchema = {
  type: 'object',
  required: ['name', 'age'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    role: { enum: ['admin', 'user', { custom: [1, 2] }] },
    tags: { type: 'array', items: { type: 'string' } },
    nickname: { type: ['string', 'null'] },
  },
  additionalProperties: false,
};

describe('validateJsonSchema', () => {
  it('accepts a value that satisfies every keyword', () => {
    expect(validateJsonSchema(person, { name: 'Ada', age: 36, role: { custom: [1, 2] }, tags: ['x'], nickname: null })).toEqual([]);
  });

  it('reports every problem with its path', () => {
    expect(validateJsonSchema(person, { name: '', age: 36.5, role: 'root', tags: ['ok', 3], extra: true })).toEqual([
      { path: ['name'], message: 'must be at least 1 characters long' },
      { path: ['age'], message: 'expected integer, got number' },
      { path: ['role'], message: 'must be one of "admin", "user", {"custom":[1,2]}' },
      { path: ['tags', 1], message: 'expected string, got number' },
      { path: ['extra'], message: 'is not an allowed property' },
    ]);
  });

  it('checks required properties, bounds and length in code points', () => {
    expect(validateJsonSchema(person, { name: '😀😀😀😀😀' , age: 151 })).toEqual([{ path: ['age'], message: 'must be ≤ 150' }]);
    expect(validateJsonSchema(person, { name: 'toolong', age: -1 })).toEqual([
      { path: ['name'], message: 'must be at most 5 characters long' },
      { path: ['age'], message: 'must be ≥ 0' },
    ]);
    expect(validateJsonSchema(person, {})).toEqual([
      { path: ['name'], message: 'is required' },
      { path: ['age'], message: 'is required' },
    ]);
  });

  it('validates extra properties against a schema-valued additionalProperties', () => {
    const counts: JsonSchema = { type: 'object', additionalProperties: { type: 'number' } };
    expect(validateJsonSchema(counts, { a: 1, b: 'two' })).toEqual([{ path: ['b'], message: 'expected number, got string' }]);
  });

  it('tells objects, arrays and null apart, and refuses non-finite numbers', () => {
    expect(validateJsonSchema({ type: 'object' }, [])).toEqual([{ path: [], message: 'expected object, got array' }]);
    expect(validateJsonSchema({ type: 'object' }, null)).toEqual([{ path: [], message: 'expected object, got null' }]);
    expect(validateJsonSchema({ type: 'object' }, undefined)).toEqual([{ path: [], message: 'expected object, got nothing' }]);
    expect(validateJsonSchema({ type: 'number' }, Number.NaN)).toHaveLength(1);
  });

  it('accepts anything against an empty schema and ignores keywords outside the subset', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => validateJsonSchema({ description: 'anything', pattern: '^x$' }, value).length === 0));
  });

  it('accepts every value that matches an enum member, whatever its key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        return validateJsonSchema({ enum: [record] }, reversed).length === 0;
      }),
    );
  });
});
