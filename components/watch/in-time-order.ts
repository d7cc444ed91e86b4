/**
 * `items` ordered by time (ties and missing times keep arrival order), or `items` itself when already in order,
 * which is the usual case: a single O(n) pass. The store keeps arrival order, so a history catch-up that lands
 * after live envelopes would otherwise show older envelopes below newer ones.
 */
export function inTimeOrder<T>(items: readonly T[], timeOf: (item: T) => number, seqOf: (item: T) => number): readonly T[] {
  let prev = -Infinity;
  let ordered = true;
  for (const item of items) {
    const t = timeOf(item);
    if (t < prev) {
      ordered = false;
      break;
    }
    prev = t;
  }
  if (ordered) return items;
  return [...items].sort((a, b) => timeOf(a) - timeOf(b) || seqOf(a) - seqOf(b));
}
