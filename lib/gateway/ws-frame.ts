const OPEN_BRACKET = 0x5b; // [
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d; // ]

/**
 * Encodes an unmasked, unfragmented WebSocket frame (RFC 6455 §5.2), text or binary, as a server sends it.
 * Server frames are never masked, so one encoding serves every recipient of a broadcast.
 */
export function encodeFrame(data: Buffer, binary = false): Buffer {
  const { frame, offset } = allocateFrame(data.length, binary);
  data.copy(frame, offset);
  return frame;
}

/**
 * Encodes a text frame holding the JSON array `[a,b,…]` of already-serialised JSON values: their bytes are copied
 * once into the frame, never parsed or serialised again.
 */
export function encodeJsonArrayFrame(items: readonly Buffer[]): Buffer {
  let length = 2 + Math.max(0, items.length - 1); // the brackets and the commas between items
  for (const item of items) length += item.length;
  const { frame, offset } = allocateFrame(length, false);
  let at = offset;
  frame[at++] = OPEN_BRACKET;
  items.forEach((item, i) => {
    if (i > 0) frame[at++] = COMMA;
    at += item.copy(frame, at);
  });
  frame[at] = CLOSE_BRACKET;
  return frame;
}

/** A frame buffer with its header written for a payload of `length` bytes, and where that payload starts. */
function allocateFrame(length: number, binary: boolean): { frame: Buffer; offset: number } {
  const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = binary ? 0x82 : 0x81; // FIN + opcode 2 (binary) or 1 (text)
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  return { frame, offset: headerLength };
}
