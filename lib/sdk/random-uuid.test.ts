import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUuid } from './random-uuid';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('makes v4 UUIDs without crypto.randomUUID (insecure browser contexts)', () => {
    const { getRandomValues } = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: getRandomValues.bind(globalThis.crypto) });
    const ids = Array.from({ length: 200 }, randomUuid);
    expect(ids.every((id) => UUID_V4.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses crypto.randomUUID where it exists', () => {
    expect(randomUuid()).toMatch(UUID_V4);
  });
});
