import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJsonSchema, type JsonSchema } from './json-schema-validator';
import { RELEASE_SCHEMA, VALID_RELEASE } from './testing';

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

/** The keywords the hand-written validator ignored (the defect): each must now be enforced. */
const release = RELEASE_SCHEMA;

describe('validateJsonSchema', () => {
  it('accepts a value that satisfies every keyword', () => {
    expect(validateJsonSchema(person, { name: 'Ada', age: 36, role: { custom: [1, 2] }, tags: ['x'], nickname: null })).toEqual([]);
    expect(validateJsonSchema(release, { ...VALID_RELEASE, channel: 'beta', targets: ['linux', 64] })).toEqual([]);
  });

  it('reports every problem where it is, once', () => {
    expect(validateJsonSchema(person, { name: '', age: 36.5, role: 'root', tags: ['ok', 3], extra: true })).toEqual([
      { path: ['name'], message: 'String is too short (0 < 1)' },
      { path: ['age'], message: 'expected integer, got number' },
      { path: ['role'], message: 'does not match any of ["admin","user",{"custom":[1,2]}]' },
      { path: ['tags', 1], message: 'expected string, got number' },
      { path: ['extra'], message: 'is not an allowed property' },
    ]);
    expect(validateJsonSchema(person, {})).toEqual([
      { path: ['name'], message: 'is required' },
      { path: ['age'], message: 'is required' },
    ]);
  });

  it.each([
    ['pattern behind a $ref', { version: 'one', channel: 'stable', targets: ['x'] }, ['version']],
    ['oneOf of consts', { version: '1.0.0', channel: 'nightly', targets: ['x'] }, ['channel']],
    ['minItems', { version: '1.0.0', channel: 'stable', targets: [] }, ['targets']],
    ['anyOf inside items', { version: '1.0.0', channel: 'stable', targets: ['x', 'Bad!'] }, ['targets', 1]],
    ['const', { version: '1.0.0', channel: 'stable', targets: ['x'], confirm: false }, ['confirm']],
  ])('enforces %s', (_name, value, path) => {
    expect(validateJsonSchema(release, value).map((i) => i.path)).toEqual([path]);
  });

  it('tells objects, arrays and null apart, and refuses what is not JSON', () => {
    expect(validateJsonSchema({ type: 'object' }, [])).toEqual([{ path: [], message: 'expected object, got array' }]);
    expect(validateJsonSchema({ type: 'object' }, null)).toEqual([{ path: [], message: 'expected object, got null' }]);
    expect(validateJsonSchema({ type: 'object' }, undefined)).toEqual([{ path: [], message: 'expected a JSON value, got nothing' }]);
  });

  it('keeps paths through keys that need escaping in a JSON pointer', () => {
    const schema: JsonSchema = { type: 'object', properties: { 'a/b~c d': { type: 'number' } } };
    expect(validateJsonSchema(schema, { 'a/b~c d': 'x' })).toEqual([{ path: ['a/b~c d'], message: 'expected number, got string' }]);
  });

  it('accepts anything against an empty schema', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => validateJsonSchema({ description: 'anything' }, value).length === 0));
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
