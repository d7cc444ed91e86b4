import * as ws from 'ws';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from './ws-frame';

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
