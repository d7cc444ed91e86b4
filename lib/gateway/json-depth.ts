import { isWellFormedText } from '../protocol/well-formed-text';

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,

/** How far into a frame `topLevelJsonId` looks: an envelope's `id` comes early, a depth bomb may be long. */
const ID_SCAN_LIMIT_BYTES = 16 * 1024;
/** The longest id the gateway echoes back as a `correlation_id` (the parsed path keeps 256 characters too). */
const MAX_ID_CHARS = 256;
/** A JSON string of `MAX_ID_CHARS` characters is at most this long written out (`\uXXXX` per UTF-16 unit, quotes). */
const MAX_ID_JSON_BYTES = MAX_ID_CHARS * 6 + 2;
/** The key `id` as it is nearly always written. */
const ID_KEY = [0x69, 0x64];
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

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

/**
 * The top-level `"id"` string of a JSON object, read off the bytes without parsing: for refusals made before the
 * parse (too deep), so that they carry a `correlation_id` like every other refusal. Only the object's own members
 * count (an `id` nested deeper is skipped), strings and their escapes are respected, and only the first
 * `ID_SCAN_LIMIT_BYTES` are read. Undefined when unsure: no object, no string id, an id longer than `MAX_ID_CHARS`,
 * not well-formed, or two top-level ids (JSON.parse would take the last).
 *
 * @example
 * topLevelJsonId(Buffer.from('{"payload":{"id":"inner"},"id":"outer"}')); // 'outer'
 */
export function topLevelJsonId(bytes: Uint8Array): string | undefined {
  const end = Math.min(bytes.length, ID_SCAN_LIMIT_BYTES);
  let i = 0;
  while (i < end && isJsonWhitespace(bytes[i])) i++;
  if (bytes[i] !== OPEN_OBJECT) return undefined;
  let depth = 1;
  // At depth 1: the next string is a key (after `{` or `,`), and whether the value being read is the id's.
  let expectKey = true;
  let valueOfId = false;
  let found: string | undefined;
  for (i++; i < end; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      const close = closingQuote(bytes, i, end);
      if (close === -1) break; // the string runs past what is read
      if (depth === 1 && expectKey) {
        valueOfId = isIdKey(bytes, i, close);
        if (valueOfId && found !== undefined) return undefined; // a second id: JSON.parse would take it, whatever it is
        expectKey = false;
      } else if (depth === 1 && valueOfId) {
        found = decodeId(bytes, i, close);
        if (found === undefined) return undefined;
        valueOfId = false;
      }
      i = close;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (depth === 1) valueOfId = false; // an id that is an object or array is no id
      depth++;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (--depth === 0) return found;
    } else if (byte === COMMA && depth === 1) {
      expectKey = true;
      valueOfId = false;
    }
  }
  return found;
}

function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The index of the quote closing the string opened at `open`, or -1 if it does not close before `end`. */
function closingQuote(bytes: Uint8Array, open: number, end: number): number {
  for (let i = open + 1; i < end; i++) {
    if (bytes[i] === BACKSLASH) i++;
    else if (bytes[i] === QUOTE) return i;
  }
  return -1;
}

/** Whether the key between these quotes is `id` (escaped spellings such as `"\u0069d"` included). */
function isIdKey(bytes: Uint8Array, open: number, close: number): boolean {
  if (close - open === ID_KEY.length + 1) return bytes[open + 1] === ID_KEY[0] && bytes[open + 2] === ID_KEY[1];
  return close - open <= MAX_ID_JSON_BYTES && bytes.subarray(open + 1, close).includes(BACKSLASH) && decodeString(bytes, open, close) === 'id';
}

/** The id between these quotes, if it is one the gateway would echo. */
function decodeId(bytes: Uint8Array, open: number, close: number): string | undefined {
  if (close + 1 - open > MAX_ID_JSON_BYTES) return undefined;
  const id = decodeString(bytes, open, close);
  return id !== undefined && id.length > 0 && id.length <= MAX_ID_CHARS && isWellFormedText(id) ? id : undefined;
}

function decodeString(bytes: Uint8Array, open: number, close: number): string | undefined {
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(bytes.subarray(open, close + 1)));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
