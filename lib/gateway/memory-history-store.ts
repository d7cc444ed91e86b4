import { RingBuffer } from '../collections/ring-buffer';
import { newHistoryEpoch } from './history-cursor';
import type { HistoryEntry, HistoryStore, LoadedHistory } from './history-store';

/**
 * History that lives as long as this object: for gateways without a data directory (tests), and for tests that
 * restart a gateway in-process by handing the same store to the next one. Appending is all the durability it has.
 */
export class MemoryHistoryStore implements HistoryStore {
  private readonly spaces = new Map<string, { epoch: string; entries: RingBuffer<HistoryEntry> }>();

  load(spaceId: string, limit: number): LoadedHistory {
    let space = this.spaces.get(spaceId);
    if (!space) {
      space = { epoch: newHistoryEpoch(), entries: new RingBuffer(limit) };
      this.spaces.set(spaceId, space);
    }
    return { epoch: space.epoch, entries: space.entries.toArray().slice(-limit), lastSeq: space.entries.last()?.seq ?? 0 };
  }

  append(spaceId: string, entry: HistoryEntry): void {
    this.spaces.get(spaceId)?.entries.push(entry);
  }

  commit(): boolean {
    return true;
  }

  whenDurable(done: () => void): void {
    done();
  }

  close(): void {}
}
