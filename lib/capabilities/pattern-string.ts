import { isLiteralGlob } from './glob';

/** A positive string pattern: a glob, or a regular expression written `/body/flags`. */
export type PositiveStringPattern =
  | { readonly type: 'glob'; readonly glob: string }
  | { readonly type: 'regex'; readonly source: string; readonly flags: string };

/** How a pattern string is read: a glob, a regex, or `!` followed by either. */
export type StringPattern = PositiveStringPattern | { readonly type: 'not'; readonly inner: PositiveStringPattern };

// `/body/flags`: a non-empty body, then only flags after the last `/`. A kind such as
// `mcp/request` does not start with `/`, so it stays a glob; a path such as `/tmp/` does not.
const REGEX_FORM = /^\/([\s\S]+)\/([gimsuy]*)$/;

/**
 * Reads a pattern string. Only one `!` is special: in `!!x` the second `!` is a literal character.
 *
 * @example
 * parseStringPattern('!delete_*'); // { type: 'not', inner: { type: 'glob', glob: 'delete_*' } }
 * parseStringPattern('/^read_/i'); // { type: 'regex', source: '^read_', flags: 'i' }
 */
export function parseStringPattern(text: string): StringPattern {
  if (text.startsWith('!')) return { type: 'not', inner: parsePositive(text.slice(1)) };
  return parsePositive(text);
}

function parsePositive(text: string): PositiveStringPattern {
  const regex = REGEX_FORM.exec(text);
  return regex ? { type: 'regex', source: regex[1], flags: regex[2] } : { type: 'glob', glob: text };
}

/**
 * Whether a pattern string matches exactly one string, itself: no `!`, no `/regex/`, no wildcard.
 *
 * @example
 * isLiteralString('chat'); // true
 * isLiteralString('mcp/*'); // false
 */
export function isLiteralString(text: string): boolean {
  const parsed = parseStringPattern(text);
  return parsed.type === 'glob' && isLiteralGlob(parsed.glob);
}
