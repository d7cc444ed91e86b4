// The JSONPath subset allowed as a pattern key: `$` (the object being matched), then any of
// `.name`, `.*`, `[0]`, `[*]`, `['any key']` / `["any key"]`, and at most one recursive descent
// `..name`, `..*` or `..[…]`. One descent keeps evaluation linear in the message size: two
// nested ones (`$..a..b`) would let a hostile, deeply nested message cost quadratic time.

/** A step that selects children of one node. */
export type JsonPathChildStep =
  | { readonly type: 'name'; readonly name: string }
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'wildcard' };

/** One step of a parsed JSONPath; `descendants` applies its child step at every depth. */
export type JsonPathStep = JsonPathChildStep | { readonly type: 'descendants'; readonly step: JsonPathChildStep };

const NAME = /^[\w$-]+/;
const DIGITS = /^\d{1,15}/;

/**
 * Parses a JSONPath of the supported subset; throws a SyntaxError that says what is wrong.
 *
 * @example
 * parseJsonPath('$.params[*].name'); // [{type:'name',name:'params'}, {type:'wildcard'}, {type:'name',name:'name'}]
 */
export function parseJsonPath(path: string): JsonPathStep[] {
  if (!path.startsWith('$')) throw new SyntaxError(`JSONPath "${path}" must start with "$"`);
  const steps: JsonPathStep[] = [];
  let i = 1;
  let descended = false;
  while (i < path.length) {
    let descend = false;
    if (path.startsWith('..', i)) {
      if (descended) throw new SyntaxError(`JSONPath "${path}" may use ".." only once`);
      descend = descended = true;
      i += 2;
    } else if (path[i] === '.') {
      i += 1;
      if (path[i] === '[') throw new SyntaxError(`JSONPath "${path}": write "[" without a "." before it (at ${i})`);
    } else if (path[i] !== '[') {
      throw new SyntaxError(`JSONPath "${path}": unexpected "${path[i]}" at ${i}`);
    }
    let step: JsonPathChildStep;
    if (path[i] === '[') {
      [step, i] = readBracket(path, i);
    } else if (path[i] === '*') {
      step = { type: 'wildcard' };
      i += 1;
    } else {
      const name = NAME.exec(path.slice(i))?.[0];
      if (name === undefined) throw new SyntaxError(`JSONPath "${path}": expected a name, "*" or "[" at ${i}`);
      step = { type: 'name', name };
      i += name.length;
    }
    steps.push(descend ? { type: 'descendants', step } : step);
  }
  return steps;
}

/** Reads `[digits]`, `[*]` or `['key']`/`["key"]` (escapes: `\\` and the quote) starting at `[`. */
function readBracket(path: string, open: number): [JsonPathChildStep, number] {
  let i = open + 1;
  let step: JsonPathChildStep;
  const quote = path[i];
  if (quote === "'" || quote === '"') {
    let name = '';
    for (i += 1; i < path.length && path[i] !== quote; i++) {
      if (path[i] === '\\') {
        i += 1;
        if (path[i] !== quote && path[i] !== '\\') {
          throw new SyntaxError(`JSONPath "${path}": only \\\\ and \\${quote} may be escaped (at ${i})`);
        }
      }
      name += path[i];
    }
    if (i >= path.length) throw new SyntaxError(`JSONPath "${path}": unterminated quoted key at ${open}`);
    step = { type: 'name', name };
    i += 1;
  } else if (quote === '*') {
    step = { type: 'wildcard' };
    i += 1;
  } else {
    const digits = DIGITS.exec(path.slice(i))?.[0];
    if (digits === undefined) throw new SyntaxError(`JSONPath "${path}": expected an index, "*" or a quoted key at ${i}`);
    step = { type: 'index', index: Number(digits) };
    i += digits.length;
  }
  if (path[i] !== ']') throw new SyntaxError(`JSONPath "${path}": expected "]" at ${i}`);
  return [step, i + 1];
}

/** `findSelected` outcome: nothing was selected. */
export const NOTHING_SELECTED = -1;
/** `findSelected` outcome: values were selected, none with the wanted test result. */
export const NOT_FOUND = 0;
/** `findSelected` outcome: some selected value had the wanted test result. */
export const FOUND = 1;

/**
 * Walks the values `steps` select under `root` and reports whether one of them gives
 * `test(value) === want`, stopping at the first that does. Only own properties are followed
 * (never the prototype chain); array elements are reached only by index or wildcard, so `length`
 * is not a selectable name.
 *
 * @example
 * findSelected({ a: [{ b: 1 }] }, parseJsonPath('$.a[*].b'), (v) => v === 1, true); // FOUND
 */
export function findSelected(root: unknown, steps: readonly JsonPathStep[], test: (value: unknown) => boolean, want: boolean): number {
  return visit(root, steps, 0, test, want);
}

function visit(node: unknown, steps: readonly JsonPathStep[], at: number, test: (value: unknown) => boolean, want: boolean): number {
  if (at === steps.length) return test(node) === want ? FOUND : NOT_FOUND;
  const step = steps[at];
  if (step.type !== 'descendants') return visitChildren(node, step, steps, at + 1, test, want);
  // Iterative walk: the message, not the pattern, decides the depth here, so no recursion.
  // `seen` only matters for in-process (SDK) objects; parsed JSON has no cycles.
  const pending: unknown[] = [node];
  const seen = new Set<object>();
  let result = NOTHING_SELECTED;
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const found = visitChildren(current, step.step, steps, at + 1, test, want);
    if (found === FOUND) return FOUND;
    if (found > result) result = found;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) pending.push(current[i]);
    } else {
      for (const key in current) if (Object.hasOwn(current, key)) pending.push((current as Record<string, unknown>)[key]);
    }
  }
  return result;
}

function visitChildren(
  node: unknown,
  step: JsonPathChildStep,
  steps: readonly JsonPathStep[],
  next: number,
  test: (value: unknown) => boolean,
  want: boolean,
): number {
  if (typeof node !== 'object' || node === null) return NOTHING_SELECTED;
  if (step.type === 'name') {
    if (Array.isArray(node) || !Object.hasOwn(node, step.name)) return NOTHING_SELECTED;
    const value = (node as Record<string, unknown>)[step.name];
    return value === undefined ? NOTHING_SELECTED : visit(value, steps, next, test, want);
  }
  if (step.type === 'index') {
    if (!Array.isArray(node) || step.index >= node.length || node[step.index] === undefined) return NOTHING_SELECTED;
    return visit(node[step.index], steps, next, test, want);
  }
  let result = NOTHING_SELECTED;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      if (node[i] === undefined) continue;
      const found = visit(node[i], steps, next, test, want);
      if (found === FOUND) return FOUND;
      if (found > result) result = found;
    }
  } else {
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const value = (node as Record<string, unknown>)[key];
      if (value === undefined) continue;
      const found = visit(value, steps, next, test, want);
      if (found === FOUND) return FOUND;
      if (found > result) result = found;
    }
  }
  return result;
}
