import type { LogEntry } from '@/lib/store';
import { parseTime } from '@/lib/sdk/model/store-envelope';

// Parsed once per entry: the log is re-checked for order several times a second.
const times = new WeakMap<LogEntry, number>();

/** When the envelope happened: its `ts` (gateway-filled), else when this dashboard received it. */
export function entryTime(entry: LogEntry): number {
  let t = times.get(entry);
  if (t === undefined) {
    t = parseTime(entry.envelope.ts) ?? entry.receivedAt;
    times.set(entry, t);
  }
  return t;
}
