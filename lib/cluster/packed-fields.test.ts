import { describe, expect, it } from 'vitest';
import { packFields, unpackFields } from './packed-fields';

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

  it('refuses what it did not pack', () => {
    expect(() => unpackFields(Buffer.from('hello'))).toThrow(/not a packed field list/);
    expect(() => unpackFields(Buffer.from([0x91, 0xa5, 0x61]))).toThrow(/malformed/);
  });
});
