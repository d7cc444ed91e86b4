/** The `#` that opens a stream frame and ends its id (spec §3.10.3: `#streamID#data`). */
const MARK = '#';
const MARK_BYTE = 0x23;

/** Stream ids are short gateway-made tokens; a binary frame whose second `#` is further than this is not a stream frame. */
const MAX_STREAM_ID_BYTES = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One chunk of a stream: text when it came in a text frame, bytes when it came in a binary one. */
export interface StreamData {
  streamId: string;
  data: string | Uint8Array;
}

/**
 * A raw WebSocket frame as the client sees it: a stream chunk, or the text of an envelope (binary frames that
 * are not stream frames are read as UTF-8, so a gateway may send envelopes either way).
 */
export type DecodedFrame = { type: 'stream'; stream: StreamData } | { type: 'envelope'; text: string };

/**
 * Splits a received frame into a stream chunk or envelope text.
 *
 * @example
 * decodeWireFrame('#s-1#hello'); // { type: 'stream', stream: { streamId: 's-1', data: 'hello' } }
 * decodeWireFrame('{"kind":"chat"}'); // { type: 'envelope', text: '{"kind":"chat"}' }
 */
export function decodeWireFrame(frame: string | ArrayBuffer | Uint8Array): DecodedFrame {
  if (typeof frame === 'string') {
    const end = frame.startsWith(MARK) ? frame.indexOf(MARK, 1) : -1;
    if (end > 1) return { type: 'stream', stream: { streamId: frame.slice(1, end), data: frame.slice(end + 1) } };
    return { type: 'envelope', text: frame };
  }
  const bytes = frame instanceof Uint8Array ? frame : new Uint8Array(frame);
  const end = streamIdEnd(bytes);
  if (end > 1) return { type: 'stream', stream: { streamId: decoder.decode(bytes.subarray(1, end)), data: bytes.subarray(end + 1) } };
  return { type: 'envelope', text: decoder.decode(bytes) };
}

/**
 * The stream id of a `#id#data` frame in bytes, or undefined when the frame does not have that shape. The gateway
 * reads only this much of a frame: the data is routed as it came.
 *
 * @example
 * streamIdOf(new TextEncoder().encode('#s-1#chunk')); // 's-1'
 */
export function streamIdOf(bytes: Uint8Array): string | undefined {
  const end = streamIdEnd(bytes);
  return end > 1 ? decoder.decode(bytes.subarray(1, end)) : undefined;
}

/** Index of the `#` that ends the id, or -1. */
function streamIdEnd(bytes: Uint8Array): number {
  return bytes[0] === MARK_BYTE ? bytes.subarray(0, MAX_STREAM_ID_BYTES + 2).indexOf(MARK_BYTE, 1) : -1;
}

/**
 * Frames a stream chunk: a text frame for text, a binary frame for bytes.
 *
 * @example
 * encodeStreamFrame('s-1', 'hello'); // '#s-1#hello'
 * encodeStreamFrame('s-1', new Uint8Array([1, 2])); // Uint8Array [0x23, 0x73, 0x2d, 0x31, 0x23, 1, 2]
 */
export function encodeStreamFrame(streamId: string, data: string | Uint8Array): string | Uint8Array {
  if (!streamId || streamId.includes(MARK)) throw new TypeError(`invalid stream id ${JSON.stringify(streamId)}: it must be non-empty and contain no "#"`);
  if (typeof data === 'string') return `${MARK}${streamId}${MARK}${data}`;
  const prefix = encoder.encode(`${MARK}${streamId}${MARK}`);
  const out = new Uint8Array(prefix.length + data.length);
  out.set(prefix);
  out.set(data, prefix.length);
  return out;
}
