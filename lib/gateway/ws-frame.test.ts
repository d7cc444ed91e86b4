import * as ws from 'ws';
import { describe, expect, it } from 'vitest';
import { encodeFrame, encodeJsonArrayFrame } from './ws-frame';

// ws ships its frame parser at runtime but @types/ws does not declare it.
const { Receiver } = ws as unknown as {
  Receiver: new (options: { isServer: boolean }) => NodeJS.WritableStream & { on(event: string, cb: (arg: never) => void): void };
};

/** Decodes with ws's own receiver, as a client would. */
function decode(frame: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false });
    receiver.on('message', (data: Buffer) => resolve(data.toString()));
    receiver.on('error', reject);
    receiver.write(frame);
  });
}

describe('encodeFrame', () => {
  it.each([0, 125, 126, 65535, 65536, 200_000])('frames a %i-byte payload that a WebSocket client decodes', async (size) => {
    const text = 'é'.repeat(Math.floor(size / 2)) + 'x'.repeat(size % 2);
    const data = Buffer.from(text);
    expect(await decode(encodeFrame(data))).toBe(text);
  });
});

describe('encodeJsonArrayFrame', () => {
  it.each([[[]], [['{"a":1}']], [['{"a":1}', '"#s#x"', '{"b":"ééé"}']]])('frames %j as one JSON array', async (items) => {
    const text = await decode(encodeJsonArrayFrame(items.map((item) => Buffer.from(item))));
    expect(text).toBe(`[${items.join(',')}]`);
    expect(JSON.parse(text)).toHaveLength(items.length);
  });

  it('frames a batch above 64 KiB', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(100) })));
    expect(JSON.parse(await decode(encodeJsonArrayFrame(items))).map((v: { i: number }) => v.i)).toEqual(items.map((_, i) => i));
  });
});
