/** The text that stands in for the value of a redacted key. */
export const REDACTED = '[redacted]';

export interface CanonicalJsonOptions {
  /** Object keys (compared case-insensitively, lower-case here) whose values are replaced by {@link REDACTED}. */
  redactKeys?: ReadonlySet<string>;
}

/**
 * JSON with object keys sorted by UTF-16 code unit and no whitespace: the same value always gives the same text,
 * which is what a hash chain needs. For values that `JSON.parse` produces this is RFC 8785 (JCS), so a verifier in
 * another language can reproduce it. Otherwise it follows `JSON.stringify`: `toJSON` is honoured, `undefined`,
 * functions and symbols are dropped from objects (`null` in arrays), non-finite numbers become `null`.
 * Throws a TypeError on cycles and BigInts, as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  return write(value, options.redactKeys, new Set()) ?? 'null';
}

function write(value: unknown, redact: ReadonlySet<string> | undefined, ancestors: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: BigInt is not JSON');
    case 'object':
      break;
    default:
      return undefined; // undefined, function, symbol
  }
  if (value === null) return 'null';
  if (ancestors.has(value)) throw new TypeError('canonicalJson: circular structure');
  ancestors.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => write(item, redact, ancestors) ?? 'null').join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    // Default sort compares UTF-16 code units, the order RFC 8785 prescribes.
    for (const key of Object.keys(record).sort()) {
      const text = write(record[key], redact, ancestors);
      if (text === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${redact?.has(key.toLowerCase()) ? JSON.stringify(REDACTED) : text}`);
    }
    out = `{${parts.join(',')}}`;
  }
  ancestors.delete(value);
  return out;
}
