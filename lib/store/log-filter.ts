import { maskValue } from '../secrets/secret-masking';
import type { LogEntry } from '../sdk/model/envelope-log';
import { matchesLogFilter as matchesUnmasked, type LogFilter } from '../sdk/model/log-selectors';
import { memoSelector } from '../sdk/model/memo-selector';
import type { SpaceState } from '../sdk/model/space-state';
import type { StoreEnvelope } from '../sdk/model/store-envelope';

// The control room's log filter matches what the log shows: the envelope with its secrets masked (lib/secrets), so
// typing part of a secret never finds its row (which would leak it a character at a time). These shadow the SDK
// model's own `matchesLogFilter`/`filterLog` (which match the raw JSON, for a participant that holds it anyway) in
// everything `@/lib/store` exports.
//
// Always the masked text, even for an envelope an operator revealed in this tab: a revealed secret would otherwise
// find every other row holding the same secret, unrevealed, and a reveal (a per-tab UI state) would change what
// the store's filter answers. The masked form (`ghp_…abcd`) and the rest of the row still find it.

/** Each envelope's masked JSON, lower-cased: masked once per envelope, not per keystroke. */
const searchTexts = new WeakMap<StoreEnvelope, string>();

/** An envelope's JSON as the log shows it (secrets masked), lower-cased: what its text filter searches. */
export function logSearchText(envelope: StoreEnvelope): string {
  let text = searchTexts.get(envelope);
  if (text === undefined) {
    text = JSON.stringify(maskValue(envelope)).toLowerCase();
    searchTexts.set(envelope, text);
  }
  return text;
}

/** The filter without its text, and its text as terms, worked out once per filter object (not once per row). */
interface Prepared {
  rest: LogFilter;
  terms: readonly string[];
}
const prepared = new WeakMap<LogFilter, Prepared>();

function prepare(filter: LogFilter): Prepared {
  let p = prepared.get(filter);
  if (!p) {
    const { text, ...rest } = filter;
    p = { rest, terms: text ? text.toLowerCase().split(/\s+/).filter(Boolean) : [] };
    prepared.set(filter, p);
  }
  return p;
}

/**
 * Whether an entry passes `filter`: kind, participant and context as the SDK model's filter; `text` terms
 * (case-insensitive, all must appear) in the envelope's JSON with its secrets masked, as the log shows it.
 */
export function matchesLogFilter(entry: LogEntry, filter: LogFilter): boolean {
  const { rest, terms } = prepare(filter);
  if (!matchesUnmasked(entry, rest)) return false;
  if (terms.length === 0) return true;
  const text = logSearchText(entry.envelope);
  return terms.every((t) => text.includes(t));
}

/** Log entries passing `filter` (its text matched against masked envelopes), oldest first; stable until the log changes. */
export const filterLog = memoSelector(
  (s) => [s.log],
  (s: SpaceState, filter: LogFilter = {}): readonly LogEntry[] => {
    const all = s.log.entries.entries();
    const active = filter.kind !== undefined || filter.participant || filter.context || filter.text;
    return active ? all.filter((e) => matchesLogFilter(e, filter)) : all;
  },
);
