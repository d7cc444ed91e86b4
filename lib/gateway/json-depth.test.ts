import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, topLevelJsonId } from './json-depth';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const idOf = (text: string) => topLevelJsonId(bytes(text));
/** Arrays nested `depth` deep, as a depth bomb carries them. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('exceedsJsonDepth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(exceedsJsonDepth(bytes('{"a":[[1]]}'), 2)).toBe(true);
    expect(exceedsJsonDepth(bytes('{"a":"[[[[[[["}'), 2)).toBe(false);
  });
});

describe('topLevelJsonId', () => {
  it.each([
    ['the id of a plain envelope', '{"id":"env-1","kind":"chat"}', 'env-1'],
    ['an id after a depth bomb', `{"kind":"chat","payload":${nested(2000)},"id":"after"}`, 'after'],
    ['the top-level id, not one nested before it', '{"payload":{"id":"inner"},"id":"outer"}', 'outer'],
    ['the top-level id, not one in an array', '{"list":[{"id":"inner"}],"id":"outer"}', 'outer'],
    ['leading whitespace and spaces around the colon', ' \n\t{ "id" : "spaced" }', 'spaced'],
    ['an escaped key', '{"\\u0069d":"escaped-key"}', 'escaped-key'],
    ['an id with escapes, decoded', '{"id":"a\\"b\\\\c\\u00e9"}', 'a"b\\cé'],
    ['an id of exactly 256 characters', `{"id":"${'x'.repeat(256)}"}`, 'x'.repeat(256)],
  ])('finds %s', (_, text, id) => {
    expect(idOf(text)).toBe(id);
    expect(JSON.parse(text).id).toBe(id); // what a full parse says
  });

  it.each([
    ['an id only inside a deeper object', `{"kind":"chat","payload":{"id":"inner","extra":${nested(2000)}}}`],
    ['a string value that reads "id"', '{"kind":"id","x":"y"}'],
    ['escaped quotes that would fake an id if ignored', '{"text":"\\",\\"id\\":\\"fake","kind":"chat"}'],
    ['braces in a string that would fake a depth change', '{"text":"}{","payload":{"x":"}","id":"inner"}}'],
    ['an id that is not a string', '{"id":42,"kind":"chat"}'],
    ['an id that is an object', '{"id":{"id":"inner"}}'],
    ['an empty id', '{"id":""}'],
    ['an id over 256 characters', `{"id":"${'x'.repeat(257)}"}`],
    ['an id with a lone surrogate', '{"id":"\\ud800"}'],
    ['two top-level ids (a parse would take the last)', '{"id":"first","id":"second"}'],
    ['a top-level array', '["id","x"]'],
    ['an id beyond the bytes read', `{"pad":"${'x'.repeat(20_000)}","id":"late"}`],
    ['an id string cut off by the end', '{"id":"unterminated'],
  ])('is undefined for %s', (_, text) => {
    expect(idOf(text)).toBeUndefined();
  });

  it('is undefined for an id that is not UTF-8', () => {
    expect(topLevelJsonId(Buffer.concat([bytes('{"id":"'), Buffer.from([0xff]), bytes('"}')]))).toBeUndefined();
  });

  it('agrees with JSON.parse on any object: the id a parse gives when it is one to echo, else nothing', () => {
    // Any code unit (lone surrogates, quotes, backslashes, controls: escaped by JSON.stringify), lengths across 256.
    const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength });
    const id = fc.oneof(text(300), fc.jsonValue({ maxDepth: 2 }));
    fc.assert(
      fc.property(fc.dictionary(text(5), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), fc.option(id, { nil: undefined }), (members, maybeId) => {
        const value = maybeId === undefined ? members : { ...members, id: maybeId };
        const text = JSON.stringify(value);
        const parsed = (JSON.parse(text) as { id?: unknown }).id;
        const echoed = typeof parsed === 'string' && parsed.length > 0 && parsed.length <= 256 && parsed.isWellFormed() ? parsed : undefined;
        expect(topLevelJsonId(bytes(text))).toBe(echoed);
      }),
    );
  });
});
