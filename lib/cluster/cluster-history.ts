import type { HistoryEntry, HistoryStore, LoadedHistory } from '../gateway/history-store';
import { clusterKeys } from './cluster-keys';
import type { FencedWriter } from './fenced-writer';

/**
 * A space's numbered history in its Redis stream: loaded by the owner when it takes the space over, appended
 * through the owner's fenced writes, capped (approximately, as XADD MAXLEN ~ does) at the space's history size.
 */
export class ClusterHistory implements HistoryStore {
  constructor(
    private readonly loaded: LoadedHistory,
    private readonly writer: FencedWriter,
    private readonly maxLen: number,
  ) {}

  load(): LoadedHistory {
    return this.loaded;
  }

  append(spaceId: string, entry: HistoryEntry): void {
    const fields: (string | Buffer)[] = ['s', String(entry.seq), 'd', entry.bytes ?? entry.data, 't', String(entry.receivedAt)];
    if (entry.visibleTo) fields.push('v', JSON.stringify(entry.visibleTo));
    this.writer.append(clusterKeys.history(spaceId), this.maxLen, fields);
  }

  /** True: what the owner produces reaches anyone only through the fenced writer, after its write succeeded. */
  commit(): boolean {
    return true;
  }

  whenDurable(done: () => void): void {
    void this.writer.drained().then(done);
  }

  close(): Promise<void> {
    return this.writer.drained();
  }
}

/** One history stream entry's fields back into an entry. */
export function historyEntryOf(fields: string[]): HistoryEntry | undefined {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i], fields[i + 1]);
  const seq = Number(f.get('s'));
  const data = f.get('d');
  if (!Number.isInteger(seq) || data === undefined) return undefined;
  const visibleTo = f.get('v');
  return { seq, data, receivedAt: Number(f.get('t') ?? 0), ...(visibleTo && { visibleTo: JSON.parse(visibleTo) as string[] }) };
}
