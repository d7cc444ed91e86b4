const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, read off the bytes before parsing: a deeply
 * nested but valid message would otherwise parse, then make every recursive step after it (serialising for
 * fan-out, canonical JSON for the audit) throw. Text with no more `{` and `[` than the limit cannot exceed it,
 * which a native byte search tells cheaply for nearly every message; only the rest get one pass over the bytes.
 *
 * @example
 * exceedsJsonDepth(Buffer.from('{"a":[[1]]}'), 2); // true: three levels
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number): boolean {
  if (bytes.length <= maxDepth || !hasMoreOpenersThan(bytes, maxDepth)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** Whether `{` and `[` occur more than `limit` times (strings included): counted with the native byte search. */
function hasMoreOpenersThan(bytes: Uint8Array, limit: number): boolean {
  let count = 0;
  for (let i = bytes.indexOf(OPEN_OBJECT); i !== -1; i = bytes.indexOf(OPEN_OBJECT, i + 1)) if (++count > limit) return true;
  for (let i = bytes.indexOf(OPEN_ARRAY); i !== -1; i = bytes.indexOf(OPEN_ARRAY, i + 1)) if (++count > limit) return true;
  return false;
}
