import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeStreamFrame } from './stream-frame';

const streamId = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);

describe('stream frames', () => {
  it('round-trips text and bytes through encode and decode', () => {
    fc.assert(
      fc.property(streamId, fc.string(), (id, data) => {
        expect(decodeFrame(encodeStreamFrame(id, data) as string)).toEqual({ type: 'stream', stream: { streamId: id, data } });
      }),
    );
    fc.assert(
      fc.property(streamId, fc.uint8Array(), (id, data) => {
        const frame = encodeStreamFrame(id, data) as Uint8Array;
        expect(decodeFrame(frame.buffer as ArrayBuffer)).toEqual({ type: 'stream', stream: { streamId: id, data } });
      }),
    );
  });

  it('reads everything that is not #id#data as envelope text, from text or binary frames', () => {
    expect(decodeFrame('{"kind":"chat"}')).toEqual({ type: 'envelope', text: '{"kind":"chat"}' });
    expect(decodeFrame('##no id')).toEqual({ type: 'envelope', text: '##no id' });
    expect(decodeFrame('#no second mark')).toEqual({ type: 'envelope', text: '#no second mark' });
    expect(decodeFrame(new TextEncoder().encode('{"a":1}'))).toEqual({ type: 'envelope', text: '{"a":1}' });
  });

  it('refuses to frame a stream id that would break the framing', () => {
    expect(() => encodeStreamFrame('a#b', 'x')).toThrow(/contain no "#"/);
    expect(() => encodeStreamFrame('', 'x')).toThrow(TypeError);
  });
});
