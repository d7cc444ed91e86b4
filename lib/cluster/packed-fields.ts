/**
 * A flat list of byte strings as one MessagePack array of `str` values: what the cluster writes as one Redis
 * argument or one stream field instead of thousands (each of which the client would frame and the kernel copy
 * on its own). `str` rather than `bin`: the `cmsgpack` of Redis's Lua reads `str` (its bytes need not be UTF-8)
 * but not `bin`.
 */
export function packFields(fields: readonly PackedField[]): Buffer {
  const measured = measure(fields);
  const out = Buffer.allocUnsafe(measured.size);
  writeList(out, 0, fields, measured);
  return out;
}

/**
 * A list packed as one field of another (each node's outbox entry inside an owner's batch): written in place, so
 * its bytes are copied once rather than packed on their own and then copied into the outer list.
 */
export class NestedFields {
  constructor(readonly fields: readonly PackedField[]) {}
}

export type PackedField = string | Buffer | NestedFields;

interface Measured {
  size: number;
  lengths: number[];
  /** The measures of nested lists, by index (only where there are any). */
  nested?: Measured[];
}

function measure(fields: readonly PackedField[]): Measured {
  const measured: Measured = { size: arrayHeaderSize(fields.length), lengths: new Array<number>(fields.length) };
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    let length: number;
    if (typeof field === 'string') length = Buffer.byteLength(field);
    else if (field instanceof NestedFields) {
      const inner = measure(field.fields);
      (measured.nested ??= [])[i] = inner;
      length = inner.size;
    } else length = field.length;
    measured.lengths[i] = length;
    measured.size += strHeaderSize(length) + length;
  }
  return measured;
}

function writeList(out: Buffer, at: number, fields: readonly PackedField[], measured: Measured): number {
  at = writeArrayHeader(out, at, fields.length);
  for (let i = 0; i < fields.length; i++) {
    at = writeStrHeader(out, at, measured.lengths[i]);
    const field = fields[i];
    if (typeof field === 'string') at += out.write(field, at);
    else if (field instanceof NestedFields) at = writeList(out, at, field.fields, measured.nested![i]);
    else at += field.copy(out, at);
  }
  return at;
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

function writeArrayHeader(out: Buffer, at: number, count: number): number {
  if (count < 16) return out.writeUInt8(0x90 | count, at);
  if (count < 0x10000) return out.writeUInt16BE(count, out.writeUInt8(0xdc, at));
  return out.writeUInt32BE(count, out.writeUInt8(0xdd, at));
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
