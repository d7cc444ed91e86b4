/**
 * A flat list of byte strings as one MessagePack array of `str` values: what the cluster writes as one Redis
 * argument or one stream field instead of thousands (each of which the client would frame and the kernel copy
 * on its own). `str` rather than `bin`: the `cmsgpack` of Redis's Lua reads `str` (its bytes need not be UTF-8)
 * but not `bin`.
 */
export function packFields(fields: readonly (string | Buffer)[]): Buffer {
  let size = arrayHeaderSize(fields.length);
  const lengths = new Array<number>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    const length = typeof field === 'string' ? Buffer.byteLength(field) : field.length;
    lengths[i] = length;
    size += strHeaderSize(length) + length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = writeArrayHeader(out, fields.length);
  for (let i = 0; i < fields.length; i++) {
    at = writeStrHeader(out, at, lengths[i]);
    const field = fields[i];
    at += typeof field === 'string' ? out.write(field, at) : field.copy(out, at);
  }
  return out;
}

/** The byte strings of a packed list, as views into `packed` (no copies). */
export function unpackFields(packed: Buffer): Buffer[] {
  let at = 0;
  const read = (bytes: number) => {
    const value = packed.readUIntBE(at, bytes);
    at += bytes;
    return value;
  };
  const tag = packed[at++];
  const count = tag >= 0x90 && tag <= 0x9f ? tag & 0x0f : tag === 0xdc ? read(2) : tag === 0xdd ? read(4) : -1;
  if (count < 0) throw new TypeError(`not a packed field list (tag 0x${tag?.toString(16)})`);
  const fields = new Array<Buffer>(count);
  for (let i = 0; i < count; i++) {
    const head = packed[at++];
    const length = head >= 0xa0 && head <= 0xbf ? head & 0x1f : head === 0xd9 ? read(1) : head === 0xda ? read(2) : head === 0xdb ? read(4) : -1;
    if (length < 0 || at + length > packed.length) throw new TypeError(`packed field ${i} is malformed`);
    fields[i] = packed.subarray(at, at + length);
    at += length;
  }
  return fields;
}

function arrayHeaderSize(count: number): number {
  return count < 16 ? 1 : count < 0x10000 ? 3 : 5;
}

function writeArrayHeader(out: Buffer, count: number): number {
  if (count < 16) return out.writeUInt8(0x90 | count, 0);
  if (count < 0x10000) return out.writeUInt16BE(count, out.writeUInt8(0xdc, 0));
  return out.writeUInt32BE(count, out.writeUInt8(0xdd, 0));
}

function strHeaderSize(length: number): number {
  return length < 32 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5;
}

function writeStrHeader(out: Buffer, at: number, length: number): number {
  if (length < 32) return out.writeUInt8(0xa0 | length, at);
  if (length < 0x100) return out.writeUInt8(length, out.writeUInt8(0xd9, at));
  if (length < 0x10000) return out.writeUInt16BE(length, out.writeUInt8(0xda, at));
  return out.writeUInt32BE(length, out.writeUInt8(0xdb, at));
}
