import { isRecordValue } from './json-value';

/** A before/after text pair carried by the arguments themselves (e.g. `old_content`/`new_content`). */
export interface TextChange {
  /** What changed, e.g. `content` or `edits[0]`. */
  label: string;
  before: string;
  after: string;
  /** Argument keys the change was read from (shown as a diff instead of raw JSON). */
  keys: readonly string[];
}

/** A whole-file write whose current content can be compared with the proposed one. */
export interface FileWrite {
  pathKey: string;
  path: string;
  contentKey: string;
  content: string;
}

// Old/new naming conventions of common file-editing tools.
const PAIRS = [
  ['old_content', 'new_content'],
  ['old', 'new'],
  ['old_string', 'new_string'],
  ['old_text', 'new_text'],
  ['oldText', 'newText'],
  ['before', 'after'],
] as const;

const asText = (value: unknown): string => (typeof value === 'string' ? value : prettyJson(value));

/** Before/after pairs in the arguments: top-level pairs, plus MCP filesystem `edit_file`'s `edits[]`. */
export function embeddedChanges(args: unknown): TextChange[] {
  if (!isRecordValue(args)) return [];
  const changes: TextChange[] = [];
  for (const [oldKey, newKey] of PAIRS) {
    if (Object.hasOwn(args, oldKey) && Object.hasOwn(args, newKey)) {
      changes.push({ label: newKey, before: asText(args[oldKey]), after: asText(args[newKey]), keys: [oldKey, newKey] });
    }
  }
  if (Array.isArray(args.edits)) {
    const edits = args.edits.filter(isRecordValue);
    const pairs = edits.flatMap((edit, i) => {
      const pair = PAIRS.find(([o, n]) => Object.hasOwn(edit, o) && Object.hasOwn(edit, n));
      return pair ? [{ label: `edits[${i}]`, before: asText(edit[pair[0]]), after: asText(edit[pair[1]]), keys: ['edits'] }] : [];
    });
    if (pairs.length === edits.length) changes.push(...pairs);
  }
  return changes;
}

const WRITE_TOOL = /(^|[_.-])(write_file|create_file|write_text_file)$/;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'filename', 'file'] as const;
const CONTENT_KEYS = ['content', 'contents', 'text', 'data'] as const;

/** The path and content of a `write_file`-like call, if the tool and its arguments look like one. */
export function fileWrite(toolName: string | undefined, args: unknown): FileWrite | undefined {
  if (!toolName || !WRITE_TOOL.test(toolName) || !isRecordValue(args)) return undefined;
  const pathKey = PATH_KEYS.find((k) => typeof args[k] === 'string');
  const contentKey = CONTENT_KEYS.find((k) => typeof args[k] === 'string');
  if (!pathKey || !contentKey) return undefined;
  return { pathKey, path: args[pathKey] as string, contentKey, content: args[contentKey] as string };
}

/** The text of an MCP result: its `content[]` text items, else the result as JSON. */
export function resultText(result: unknown): string {
  if (isRecordValue(result) && Array.isArray(result.content)) {
    const texts = result.content
      .filter(isRecordValue)
      .map((item) =>
        typeof item.text === 'string'
          ? item.text
          : item.type === 'resource' && isRecordValue(item.resource)
            ? asText(item.resource.text ?? item.resource.uri)
            : `[${String(item.type ?? 'item')}]`,
      );
    if (texts.length > 0) return texts.join('\n');
  }
  return result === undefined ? '' : prettyJson(result);
}

/** Pretty JSON that never throws (cycles or BigInts cannot come off the wire, but stay safe). */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The arguments without the keys shown elsewhere (as a diff). */
export function omitKeys(args: unknown, keys: readonly string[]): unknown {
  if (!isRecordValue(args) || keys.length === 0) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => !keys.includes(k)));
}

/** Argument names whose values say what a call acts on (a file, a folder, a URL). */
const TARGET_KEY = /path|file|dir|folder|source|destination|uri|url|name/i;
const GLANCE_LENGTH = 100;

/**
 * What a call acts on, in one line, for a card whose arguments are folded away (history): its path-like arguments
 * (`notes/a.md → archive/a.md` for a move), else its first short text argument; undefined when nothing fits.
 */
export function argumentsAtAGlance(p: { method: string; arguments?: unknown; params?: unknown }): string | undefined {
  const args = p.method === 'tools/call' ? p.arguments : p.params;
  if (!isRecordValue(args)) return undefined;
  const short = Object.entries(args).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '' && !entry[1].includes('\n'));
  const targets = short.filter(([key]) => TARGET_KEY.test(key)).map(([, value]) => value);
  const text = targets.length > 0 ? targets.join(' → ') : short[0]?.[1];
  if (text === undefined) return undefined;
  return text.length > GLANCE_LENGTH ? `${text.slice(0, GLANCE_LENGTH - 1)}…` : text;
}
