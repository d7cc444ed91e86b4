import type { Proposal } from '../sdk/model/proposals-slice';
import type { ApprovalRuleInput, ProposalFacts } from './approval-rule';

/** A rule's `match`. */
export type RuleMatch = ApprovalRuleInput['match'];

/** Strings longer than this (file contents, messages) are never pinned by a learnt rule: no two calls repeat them. */
const MAX_LITERAL_LENGTH = 120;
/** At most this many distinct values of an argument become a one-of list; more mean it varies freely. */
const MAX_ONE_OF = 5;
/** Argument names whose values are contents: never pinned, whatever their length. */
const CONTENT_KEY = /content|text|body|data|message|patch|diff|edits/i;
/** Argument names whose values are paths or locations: a rule covers their folder, not only the one file. */
const PATH_KEY = /path|file|dir|folder|source|destination|uri|url/i;

/** What the rules look at in a proposal (the supervisor, the preview and learning read it the same way). */
export function proposalFacts(p: Pick<Proposal, 'proposer' | 'targets' | 'method' | 'toolName' | 'arguments'>): ProposalFacts {
  return { proposer: p.proposer, targets: [...p.targets], method: p.method, tool: p.toolName, arguments: p.arguments };
}

/** Proposals of one shape: same proposer, targets, method and tool (what a learnt rule is about). */
export function shapeKey(facts: ProposalFacts): string {
  return JSON.stringify([facts.proposer, [...(facts.targets ?? [])].sort(), facts.method, facts.tool ?? null]);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPathLike = (key: string, value: string) => PATH_KEY.test(key) || value.includes('/');
// A glob must not read a literal `*` or `?` of the value as a wildcard, nor a leading `!` as negation.
const literalSafe = (value: string) => !/[*?]/.test(value) && !value.startsWith('!') && !/^\/.+\/[gimsuy]*$/.test(value);

/** The folder part of a path, with its trailing slash ('' when none). */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1);
}

/** The longest folder every path lies in ('' when none). */
function commonFolder(paths: string[]): string {
  let prefix = folderOf(paths[0]);
  for (const path of paths.slice(1)) {
    while (prefix !== '' && !path.startsWith(prefix)) prefix = folderOf(prefix.slice(0, -1));
  }
  return prefix;
}

/**
 * A few values that repeat, as themselves or a one-of list; undefined when they vary freely (every call had its
 * own value, or too many).
 */
function oneOf(values: unknown[]): unknown {
  const distinct = [...new Set(values)];
  if (distinct.length === 1) return distinct[0];
  return distinct.length <= MAX_ONE_OF && distinct.length < values.length ? distinct : undefined;
}

/** The narrowest pattern covering every value of one argument, or undefined when it should not be constrained. */
function argumentPattern(key: string, values: unknown[]): unknown {
  if (CONTENT_KEY.test(key)) return undefined;
  if (values.every((v) => typeof v === 'number' || typeof v === 'boolean')) return oneOf(values);
  if (!values.every((v): v is string => typeof v === 'string' && v.length <= MAX_LITERAL_LENGTH && !v.includes('\n'))) return undefined;
  const distinct = [...new Set(values)];
  if (!distinct.every(literalSafe)) return undefined;
  if (distinct.every((v) => isPathLike(key, v))) {
    const folder = commonFolder(distinct);
    if (folder !== '' && literalSafe(folder)) return `${folder}*`;
    return distinct.length === 1 ? distinct[0] : undefined;
  }
  return oneOf(values);
}

/**
 * The narrowest rule match that covers every one of `proposals` (of one shape): their proposer, target, method and
 * tool as literals; of their arguments, those present in all of them, each pinned as tightly as the calls allow:
 * paths to their common folder (`notes/*`), short values to themselves (or a one-of list of values that repeat),
 * while contents and values that never repeat are left free: pinning them would match only the calls already seen.
 *
 * @example
 * narrowestMatch([facts({ path: 'notes/a.md', content: '…' }), facts({ path: 'notes/b.md', content: '…' })]);
 * // { proposer: 'scribe', target: 'files', method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/*' } }
 */
export function narrowestMatch(proposals: readonly ProposalFacts[]): RuleMatch {
  const [first] = proposals;
  const targets = first.targets ?? [];
  const match: RuleMatch = { proposer: first.proposer, method: first.method };
  if (targets.length === 1 && literalSafe(targets[0])) match.target = targets[0];
  if (first.tool !== undefined) match.tool = first.tool;
  const args = proposals.map((p) => p.arguments);
  if (args.every(isObject)) {
    const pinned: Record<string, unknown> = {};
    for (const key of Object.keys(args[0])) {
      if (!args.every((a) => key in a) || key.startsWith('$')) continue;
      const pattern = argumentPattern(
        key,
        args.map((a) => a[key]),
      );
      if (pattern !== undefined) pinned[key] = pattern;
    }
    if (Object.keys(pinned).length > 0) match.arguments = pinned;
  }
  return match;
}

/** A match in a few words, e.g. `scribe → files · write_file · path notes/*`. */
export function describeMatch(match: RuleMatch): string {
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const who = [match.proposer !== undefined ? show(match.proposer) : 'anyone', match.target !== undefined ? show(match.target) : undefined]
    .filter(Boolean)
    .join(' → ');
  const what = match.tool !== undefined ? show(match.tool) : match.method !== undefined ? show(match.method) : 'any call';
  const args = isObject(match.arguments)
    ? Object.entries(match.arguments).map(([key, value]) => `${key} ${show(value)}`)
    : match.arguments !== undefined
      ? [show(match.arguments)]
      : [];
  return [who, what, ...args].join(' · ');
}

/** One line of what a rule covers: the field as a person reads it, the pattern, and the pattern in words. */
export interface ScopeLine {
  field: string;
  pattern?: string;
  words: string;
}

/** A pattern value in words: a folder glob, one of a list, anything, or exactly itself. */
function patternWords(pattern: unknown): string {
  if (Array.isArray(pattern)) return `one of ${pattern.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
  if (typeof pattern !== 'string') return `exactly ${JSON.stringify(pattern)}`;
  if (pattern === '*') return 'anything';
  if (/^[^*?!]*\/\*$/.test(pattern)) return `anything under ${pattern.slice(0, -1)}`;
  if (/[*?]/.test(pattern) || pattern.startsWith('!') || /^\/.+\/[gimsuy]*$/.test(pattern)) return `matching ${pattern}`;
  return `exactly ${pattern}`;
}

/**
 * What a rule made from a proposal covers, line by line, to show before it is saved: who, to whom, which tool, and
 * each of the proposal's arguments, pinned (`path: anything under notes/`) or free (`content: any value`).
 *
 * @example
 * scopeOf({ proposer: 'scribe', target: 'files', method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/*' } }, { path: 'notes/a.md', content: '…' });
 * // [{ field: 'from', pattern: 'scribe', words: 'exactly scribe' }, …, { field: 'path', pattern: 'notes/*', words: 'anything under notes/' }, { field: 'content', words: 'any value' }]
 */
export function scopeOf(match: RuleMatch, args: unknown): ScopeLine[] {
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const line = (field: string, pattern: unknown, none = 'any value'): ScopeLine =>
    pattern === undefined ? { field, words: none } : { field, pattern: show(pattern), words: patternWords(pattern) };
  const lines = [line('from', match.proposer, 'anyone'), line('to', match.target, 'anyone')];
  lines.push(match.tool !== undefined ? line('tool', match.tool) : line('method', match.method, 'any call'));
  const pinned = isObject(match.arguments) ? match.arguments : {};
  const names = new Set([...Object.keys(isObject(args) ? args : {}), ...Object.keys(pinned)]);
  for (const name of names) lines.push(name in pinned ? line(name, pinned[name]) : { field: name, words: 'any value' });
  return lines;
}
