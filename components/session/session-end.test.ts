import { describe, expect, it } from 'vitest';
import { describeSessionEnd } from './session-end';

describe('describeSessionEnd', () => {
  it('calls a 4401 a refused token, dead, with the gateway’s words', () => {
    expect(describeSessionEnd('demo', { code: 4401, reason: 'unknown or revoked token' })).toEqual({
      kind: 'refused',
      title: 'The gateway refused this token for demo',
      detail: 'It is unknown or was revoked (the gateway said: unknown or revoked token). Check it and sign in again.',
      tokenDead: true,
    });
  });

  it('tells a kick (tokens revoked) from an unknown space, a replaced connection and given-up reconnects', () => {
    const kinds = [4403, 4404, 4409, 1006].map((code) => describeSessionEnd('demo', { code, reason: '' }));
    expect(kinds.map((end) => [end.kind, end.tokenDead])).toEqual([
      ['kicked', true],
      ['unknown_space', false],
      ['replaced', false],
      ['unreachable', false],
    ]);
    expect(describeSessionEnd('demo', undefined).kind).toBe('unreachable');
  });
});
