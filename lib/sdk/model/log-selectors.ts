import { maskValue } from '../../secrets/secret-masking';
import type { LogEntry } from './envelope-log';
import { memoSelector } from './memo-selector';
import type { SpaceState } from './space-state';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/**
 * What the envelope log view filters by; all given criteria must hold. Worked out once per filter object, so make a
 * new one to change it rather than changing one in place.
 */
export interface LogFilter {
  /** Kind prefix(es): `"mcp/"`, `"chat"`, `["participant/", "system/"]`. */
  kind?: string | readonly string[];
  /** Envelopes from this participant or addressed to it. */
  participant?: string;
  /** This context or a sub-context of it (`"a"` matches `"a"` and `"a/b"`). */
  context?: string;
  /** Case-insensitive terms, all of which must appear in the envelope's JSON with its secrets masked (`logSearchText`). */
  text?: string;
}

// The text filter searches the envelope as a person reads it: its JSON with its secrets masked (lib/secrets), never
// the raw JSON. Were the raw text searched, typing part of a secret would find its row, and one more character at a
// time would spell the whole secret out of what the filter answers, though every row shows it masked. The same holds
// for any SDK user that filters a log for a person (a dashboard, a CLI), so there is one filter and it is this one.
// Always the masked text, even for an envelope an operator revealed: a reveal (a per-tab UI state) must not change
// what the model answers, nor make a revealed secret find every other row that holds it unrevealed. The masked
// form (`ghp_…abcd`) and the rest of the row still find it.

/** Each envelope's masked JSON, lower-cased: masked once per envelope (the log may hold 10k), not per keystroke. */
const searchTexts = new WeakMap<StoreEnvelope, string>();

/** An envelope's JSON as the log shows it (secrets masked), lower-cased: what a `LogFilter`'s `text` searches. */
export function logSearchText(envelope: StoreEnvelope): string {
  let text = searchTexts.get(envelope);
  if (text === undefined) {
    text = JSON.stringify(maskValue(envelope)).toLowerCase();
    searchTexts.set(envelope, text);
  }
  return text;
}

/** A filter's kind prefixes and text terms, worked out once per filter object (not once per entry). */
interface PreparedFilter {
  kinds: readonly string[];
  terms: readonly string[];
}
const preparedFilters = new WeakMap<LogFilter, PreparedFilter>();

function prepare(filter: LogFilter): PreparedFilter {
  let p = preparedFilters.get(filter);
  if (!p) {
    const kinds = filter.kind === undefined ? [] : typeof filter.kind === 'string' ? [filter.kind] : filter.kind;
    const terms = filter.text ? filter.text.toLowerCase().split(/\s+/).filter(Boolean) : [];
    p = { kinds, terms };
    preparedFilters.set(filter, p);
  }
  return p;
}

/** Whether an entry passes `filter`; its `text` terms are matched against the masked JSON (`logSearchText`). */
export function matchesLogFilter(entry: LogEntry, filter: LogFilter): boolean {
  const e = entry.envelope;
  const { kinds, terms } = prepare(filter);
  if (kinds.length > 0 && !kinds.some((k) => e.kind.startsWith(k))) return false;
  if (filter.participant && e.from !== filter.participant && !e.to?.includes(filter.participant)) return false;
  if (filter.context && e.context !== filter.context && !e.context?.startsWith(`${filter.context}/`)) return false;
  if (terms.length > 0) {
    const text = logSearchText(e);
    if (!terms.every((t) => text.includes(t))) return false;
  }
  return true;
}

/** Every logged entry, oldest first (the same array until the next envelope). */
export function logEntries(state: SpaceState): readonly LogEntry[] {
  return state.log.entries.entries();
}

/** Log entries passing `filter` (its text matched against masked envelopes), oldest first; stable until the log changes. */
export const filterLog = memoSelector(
  (s) => [s.log],
  (s, filter: LogFilter = {}): readonly LogEntry[] => {
    const all = s.log.entries.entries();
    const active = filter.kind !== undefined || filter.participant || filter.context || filter.text;
    return active ? all.filter((e) => matchesLogFilter(e, filter)) : all;
  },
);

/** The envelopes linked to one by `correlation_id`, for jumping along a chain in the log. */
export interface CorrelationChain {
  /** The entry asked for (undefined when it is not, or no longer, in the log). */
  root?: LogEntry;
  /** Entries it names, transitively (its parents, their parents, …). */
  ancestors: readonly LogEntry[];
  /** Entries naming it, transitively (replies, their replies, …). */
  descendants: readonly LogEntry[];
  /** Root, ancestors and descendants together, in log order. */
  entries: readonly LogEntry[];
  /** Ids named along the way that are not in the log (evicted, or never seen). */
  missing: readonly string[];
}

function walk(
  state: SpaceState,
  start: readonly string[],
  next: (entry: LogEntry | undefined, id: string) => readonly string[],
  visited: Set<string>,
  missing: Set<string>,
): LogEntry[] {
  const out: LogEntry[] = [];
  const queue = [...start];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (visited.has(id)) continue;
    visited.add(id);
    const entry = state.log.entries.get(id);
    if (entry) out.push(entry);
    else missing.add(id);
    queue.push(...next(entry, id));
  }
  return out;
}

/**
 * The correlation chain through envelope `id`, both ways: its ancestors (what its `correlation_id` names, and so
 * on up) and its descendants (what names it, and so on down). For a proposal: the fulfilment, its response, any
 * reject and the chat explaining it; for a response: the fulfilment and the proposal. Stable until the log changes.
 */
export const correlationChain = memoSelector(
  (s) => [s.log],
  (s, id: string): CorrelationChain => {
    const root = s.log.entries.get(id);
    const missing = new Set<string>();
    const parentsOf = (entry: LogEntry | undefined) => (entry ? correlationIds(entry.envelope) : []);
    const ancestors = walk(s, root ? parentsOf(root) : [], parentsOf, new Set([id]), missing);
    // Descendants are indexed by parent id, so they are found even for evicted ancestors' ids.
    const descendants = walk(s, s.log.entries.childrenOf(id), (_e, childId) => s.log.entries.childrenOf(childId), new Set([id]), new Set());
    const entries = [...ancestors, ...(root ? [root] : []), ...descendants].sort((a, b) => a.seq - b.seq);
    return { root, ancestors, descendants, entries, missing: [...missing] };
  },
  ([id]) => id,
);

/**
 * Envelopes as JSON Lines (one envelope per line, newline-terminated), for export.
 *
 * @example
 * toJsonl(filterLog(state, { kind: 'mcp/' })); // '{"protocol":"mew/v0.4",...}\n{...}\n'
 */
export function toJsonl(entries: Iterable<LogEntry | StoreEnvelope>): string {
  let out = '';
  for (const item of entries) out += `${JSON.stringify(isLogEntry(item) ? item.envelope : item)}\n`;
  return out;
}

function isLogEntry(item: LogEntry | StoreEnvelope): item is LogEntry {
  return 'envelope' in item && 'seq' in item && 'receivedAt' in item;
}
