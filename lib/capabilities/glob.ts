// Globs: `*` is any run of characters (including `/` and the empty run), `?` is exactly one
// UTF-16 code unit, everything else is literal. There is no escape: a literal `*` or `?` needs
// a regex pattern. Matching is done by hand instead of via RegExp so a hostile 1 MiB string can
// never trigger regex backtracking blow-ups: the worst case is O(pattern × text), no allocation.

const STAR = 42; // '*'
const QUESTION = 63; // '?'

/** True when the glob has no `*` or `?`, i.e. it matches exactly one string: itself. */
export function isLiteralGlob(glob: string): boolean {
  return !glob.includes('*') && !glob.includes('?');
}

/**
 * Rewrites every run of wildcards as its `?`s followed by at most one `*`. The language is
 * unchanged (`**` = `*`, `*?` = `?*`); the canonical form lets `compileGlob` pick a fast path
 * and `covers` recognise a glob that matches every string.
 *
 * @example
 * canonicalGlob('a**?b'); // 'a?*b'
 */
export function canonicalGlob(glob: string): string {
  return glob.replace(/[*?]{2,}/g, (run) => '?'.repeat(run.split('?').length - 1) + (run.includes('*') ? '*' : ''));
}

/**
 * Whether `text` matches `glob`: greedy two-pointer matching that backtracks only to the last `*`.
 *
 * @example
 * matchGlob('mcp/*', 'mcp/request'); // true
 * matchGlob('read_?', 'read_ab'); // false
 */
export function matchGlob(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let starG = -1;
  let starT = 0;
  while (t < text.length) {
    const c = g < glob.length ? glob.charCodeAt(g) : -1;
    if (c === STAR) {
      starG = g++;
      starT = t;
    } else if (c !== -1 && (c === QUESTION || c === text.charCodeAt(t))) {
      g++;
      t++;
    } else if (starG >= 0) {
      // Let the last `*` swallow one more character and retry from just after it.
      g = starG + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob.charCodeAt(g) === STAR) g++;
  return g === glob.length;
}

/**
 * Compiles a glob once into the cheapest test for its shape: equality, prefix, suffix, infix,
 * or the general matcher.
 *
 * @example
 * const isMcp = compileGlob('mcp/*'); // a startsWith check
 * isMcp('mcp/request'); // true
 */
export function compileGlob(glob: string): (text: string) => boolean {
  const g = canonicalGlob(glob);
  if (isLiteralGlob(g)) return (text) => text === g;
  if (g === '*') return () => true;
  if (!g.includes('?')) {
    const first = g.indexOf('*');
    const last = g.lastIndexOf('*');
    if (first === last) {
      const prefix = g.slice(0, first);
      const suffix = g.slice(first + 1);
      if (suffix === '') return (text) => text.startsWith(prefix);
      if (prefix === '') return (text) => text.endsWith(suffix);
      const minLength = prefix.length + suffix.length;
      return (text) => text.length >= minLength && text.startsWith(prefix) && text.endsWith(suffix);
    }
    const middle = g.slice(1, -1);
    if (first === 0 && last === g.length - 1 && isLiteralGlob(middle)) return (text) => text.includes(middle);
  }
  return (text) => matchGlob(g, text);
}

/**
 * Sound glob inclusion: true only if every string `wanted` matches is also matched by `held`.
 * `held` is read as literals and wildcard runs (a run of k `?` and maybe a `*` matches any string
 * of length exactly k, or at least k). Each held literal must meet the same wanted literal; each
 * run absorbs a stretch of `wanted` whose every instance has a length the run accepts: with a
 * `*`, at least k non-`*` characters; without, exactly k and no `*`. Complete whenever `wanted`
 * is `held` with its wildcards replaced, conservative (false) for rarer shapes.
 *
 * @example
 * globCovers('tools/*', 'tools/call'); // true
 * globCovers('*?', 'a*'); // true: "starts with a" is within "at least one character"
 * globCovers('tools/call', 'tools/*'); // false
 */
export function globCovers(held: string, wanted: string): boolean {
  const units = globUnits(held);
  // nonStar[j]: how many characters of wanted.slice(0, j) are not `*`.
  const nonStar = new Uint32Array(wanted.length + 1);
  for (let j = 0; j < wanted.length; j++) nonStar[j + 1] = nonStar[j] + (wanted.charCodeAt(j) === STAR ? 0 : 1);
  const width = wanted.length + 1;
  // covered[i * width + j]: do units i.. cover wanted.slice(j)? Filled from the ends backwards.
  const covered = new Uint8Array((units.length + 1) * width);
  covered[units.length * width + wanted.length] = 1;
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i];
    for (let j = 0; j <= wanted.length; j++) {
      let ok = 0;
      if (typeof unit === 'number') {
        if (wanted.charCodeAt(j) === unit) ok = covered[(i + 1) * width + j + 1];
      } else {
        for (let end = j; end <= wanted.length && !ok; end++) {
          const chars = nonStar[end] - nonStar[j];
          const fits = unit.star ? chars >= unit.min : chars === unit.min && chars === end - j;
          if (fits) ok = covered[(i + 1) * width + end];
        }
      }
      covered[i * width + j] = ok;
    }
  }
  return covered[0] === 1;
}

type GlobUnit = number | { readonly min: number; readonly star: boolean };

/** Splits a glob into literal character codes and wildcard runs. */
function globUnits(glob: string): GlobUnit[] {
  const units: GlobUnit[] = [];
  for (let i = 0; i < glob.length; ) {
    const c = glob.charCodeAt(i);
    if (c !== STAR && c !== QUESTION) {
      units.push(c);
      i++;
      continue;
    }
    let min = 0;
    let star = false;
    for (; i < glob.length && (glob.charCodeAt(i) === STAR || glob.charCodeAt(i) === QUESTION); i++) {
      if (glob.charCodeAt(i) === STAR) star = true;
      else min++;
    }
    units.push({ min, star });
  }
  return units;
}
