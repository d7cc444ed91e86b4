import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../protocol';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from './testing';

/** Random frames: garbage text, random JSON, and envelope-shaped objects with random kinds and payloads. */
const frameArbitrary = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc
    .record(
      {
        protocol: fc.constantFrom('mew/v0.4', 'mew/v0.3', 42),
        id: fc.oneof(fc.uuid(), fc.integer()),
        from: fc.constantFrom('fuzzer', 'victim', 'system:gateway'),
        to: fc.oneof(fc.array(fc.constantFrom('victim', 'fuzzer', 'ghost')), fc.string()),
        kind: fc.oneof(fc.constantFrom(...KINDS), fc.string({ maxLength: 20 })),
        correlation_id: fc.oneof(fc.array(fc.string()), fc.string()),
        context: fc.string(),
        payload: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 3 })),
      },
      { requiredKeys: ['kind'] },
    )
    .map((v) => JSON.stringify(v)),
);

describe('gateway under random frames', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(
      spaceConfig('fuzz', { fuzzer: [{ kind: '*' }], victim: ['chat'], witness: ['chat'] }, { limits: { rate_per_second: 100_000, rate_burst: 100_000 } }),
    );
  });
  afterAll(() => gw.close());

  it('answers every frame, stays up, and still welcomes and routes afterwards', async () => {
    const fuzzer = await joinAs(gw, tokenOf('fuzzer'), 'space=fuzz');
    const victim = await joinAs(gw, tokenOf('victim'), 'space=fuzz');
    const frames = fc.sample(frameArbitrary, { numRuns: 1500, seed: 20261121 });
    for (const frame of frames) fuzzer.send(frame);
    fuzzer.send({ id: 'marker', kind: 'chat', payload: { text: 'end of fuzz' } });
    await fuzzer.next((f) => f.id === 'marker', 10_000);
    // Nothing the fuzzer sent could pose as the victim or the gateway.
    for (const f of victim.received) {
      expect(f.from === 'fuzzer' || f.from === 'system:gateway').toBe(true);
      if (f.from === 'system:gateway') expect(f.kind === 'system/presence' || f.to?.includes('victim')).toBe(true);
    }
    const witness = await joinAs(gw, tokenOf('witness'), 'space=fuzz');
    victim.send({ kind: 'chat', payload: { text: 'alive' } });
    expect((await witness.next((f) => f.kind === 'chat' && f.from === 'victim')).payload.text).toBe('alive');
  });
});
