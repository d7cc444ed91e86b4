/**
 * Encodes an unmasked, unfragmented WebSocket frame (RFC 6455 §5.2), text or binary, as a server sends it.
 * Server frames are never masked, so one encoding serves every recipient of a broadcast.
 */
export function encodeFrame(data: Buffer, binary = false): Buffer {
  const length = data.length;
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
  data.copy(frame, headerLength);
  return frame;
}
