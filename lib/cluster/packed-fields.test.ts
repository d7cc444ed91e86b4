import { describe, expect, it } from 'vitest';
import { NestedFields, packFields, unpackFields } from './packed-fields';

describe('packed fields', () => {
  it('round-trips strings and bytes of every header size, in order', () => {
    const fields = ['', 'o', 'x'.repeat(31), 'y'.repeat(32), 'é'.repeat(200), Buffer.from([0, 255, 10, 13]), 'z'.repeat(70_000)];
    expect(unpackFields(packFields(fields)).map((b) => b.toString('latin1'))).toEqual(fields.map((f) => Buffer.from(f).toString('latin1')));
  });

  it('holds lists longer than 15 and 65 535 items', () => {
    for (const count of [16, 70_000]) {
      const fields = Array.from({ length: count }, (_, i) => String(i));
      expect(unpackFields(packFields(fields)).map(String)).toEqual(fields);
    }
  });

  it('writes a nested list in place, as the same bytes as that list packed on its own', () => {
    const inner = ['o', 'deliver', Buffer.from([0, 1, 2]), 'x'.repeat(40)];
    const outer = unpackFields(packFields(['X', 'key', new NestedFields(inner), new NestedFields([]), 'end']));
    expect(outer.map(String)).toEqual(['X', 'key', packFields(inner).toString(), packFields([]).toString(), 'end']);
    expect(unpackFields(outer[2]).map((b) => b.toString('latin1'))).toEqual(inner.map((f) => Buffer.from(f).toString('latin1')));
  });

  it('refuses what it did not pack', () => {
    expect(() => unpackFields(Buffer.from('hello'))).toThrow(/not a packed field list/);
    expect(() => unpackFields(Buffer.from([0x91, 0xa5, 0x61]))).toThrow(/malformed/);
  });
});
