// Keyed collections in the store are Maps updated in place (O(1) per envelope, whatever their size); the slice
// object that owns a map is replaced whenever the map changes, so `===` on slices still signals change.

/**
 * Deletes the oldest entries (insertion order) of `map` until at most `cap` remain, skipping those `keep` protects.
 * Returns the deleted entries (for callers that must clean up indexes).
 */
export function trimMap<K, V>(map: Map<K, V>, cap: number, keep: (value: V) => boolean = () => false): [K, V][] {
  const removed: [K, V][] = [];
  let excess = map.size - cap;
  if (excess <= 0) return removed;
  for (const [key, value] of map) {
    if (excess <= 0) break;
    if (keep(value)) continue;
    map.delete(key);
    removed.push([key, value]);
    excess--;
  }
  return removed;
}

/**
 * `trimMap` for maps whose protected entries may outnumber the cap (a runaway agent's pending proposals or live
 * reasoning threads): after a trim that could not reach the cap, the next one waits until the map has grown by a
 * tenth of the cap, so the scan over protected entries is amortised instead of repeated on every insert.
 * `floor` is the caller's stored threshold (start at 0); returns the removed entries and the next threshold.
 */
export function trimMapAmortized<K, V>(map: Map<K, V>, cap: number, keep: (value: V) => boolean, floor: number): { removed: [K, V][]; floor: number } {
  if (map.size <= Math.max(cap, floor)) return { removed: [], floor };
  const removed = trimMap(map, cap, keep);
  return { removed, floor: map.size > cap ? map.size + Math.ceil(cap / 10) : 0 };
}

/** The last `cap - 1` items of `items` plus `item`, as a new array (small per-entity lists only). */
export function appendCapped<T>(items: readonly T[], item: T, cap: number): T[] {
  const start = Math.max(0, items.length + 1 - cap);
  const out = items.slice(start);
  out.push(item);
  return out;
}

/** The store's own write access to a map it exposes read-only (only reducers call this). */
export function writable<K, V>(map: ReadonlyMap<K, V>): Map<K, V> {
  return map as Map<K, V>;
}
