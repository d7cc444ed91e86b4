import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeWireFrame, encodeStreamFrame, streamIdOf } from './stream-frame';

const streamId = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);

describe('stream frames', () => {
  it('round-trips text and bytes through encode and decode', () => {
    fc.assert(
      fc.property(streamId, fc.string(), (id, data) => {
        expect(decodeWireFrame(encodeStreamFrame(id, data) as string)).toEqual({ type: 'stream', stream: { streamId: id, data } });
      }),
    );
    fc.assert(
      fc.property(streamId, fc.uint8Array(), (id, data) => {
        const frame = encodeStreamFrame(id, data) as Uint8Array;
        expect(decodeWireFrame(frame.buffer as ArrayBuffer)).toEqual({ type: 'stream', stream: { streamId: id, data } });
      }),
    );
  });

  it('reads everything that is not #id#data as envelope text, from text or binary frames', () => {
    expect(decodeWireFrame('{"kind":"chat"}')).toEqual({ type: 'envelope', text: '{"kind":"chat"}' });
    expect(decodeWireFrame('##no id')).toEqual({ type: 'envelope', text: '##no id' });
    expect(decodeWireFrame('#no second mark')).toEqual({ type: 'envelope', text: '#no second mark' });
    expect(decodeWireFrame(new TextEncoder().encode('{"a":1}'))).toEqual({ type: 'envelope', text: '{"a":1}' });
  });

  it('refuses to frame a stream id that would break the framing', () => {
    expect(() => encodeStreamFrame('a#b', 'x')).toThrow(/contain no "#"/);
    expect(() => encodeStreamFrame('', 'x')).toThrow(TypeError);
  });

  it('reads a stream id from bytes the way the gateway does, and nothing from other frames', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(streamIdOf(bytes('#s-1#chunk'))).toBe('s-1');
    expect(streamIdOf(bytes('##x'))).toBeUndefined();
    expect(streamIdOf(bytes('{"kind":"chat"}'))).toBeUndefined();
    expect(streamIdOf(bytes(`#${'x'.repeat(300)}#late mark`))).toBeUndefined();
  });
});
