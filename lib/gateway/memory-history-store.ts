import { RingBuffer } from '../collections/ring-buffer';
import { newHistoryEpoch } from './history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory } from './history-store';

/**
 * History that lives as long as this object: for gateways without a data directory (tests), and for tests that
 * restart a gateway in-process by handing the same store to the next one.
 */
export class MemoryHistoryStore implements HistoryStore {
  private readonly spaces = new Map<string, { epoch: string; entries: RingBuffer<HistoryEntry> }>();

  load(spaceId: string, limit: number): LoadedHistory {
    let space = this.spaces.get(spaceId);
    if (!space) {
      space = { epoch: newHistoryEpoch(), entries: new RingBuffer(limit) };
      this.spaces.set(spaceId, space);
    }
    return { epoch: space.epoch, entries: space.entries.toArray().slice(-limit) };
  }

  append(spaceId: string, entry: HistoryEntry): void {
    this.spaces.get(spaceId)?.entries.push(entry);
  }

  close(): void {}
}
