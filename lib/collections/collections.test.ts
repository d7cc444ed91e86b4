import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map';
import { RingBuffer } from './ring-buffer';

describe('bounded collections', () => {
  it('evicts the oldest item and counts it; toArray is cached until the next change', () => {
    const ring = new RingBuffer<number>(3);
    expect(ring.push(1)).toBeUndefined();
    ring.push(2);
    ring.push(3);
    expect(ring.push(4)).toBe(1);
    expect(ring.toArray()).toEqual([2, 3, 4]);
    expect(ring.toArray()).toBe(ring.toArray());
    expect([ring.at(0), ring.at(-1), ring.last(), ring.at(3)]).toEqual([2, 4, 4, undefined]);
    expect(ring.evicted).toBe(1);
    ring.clear();
    expect(ring.toArray()).toEqual([]);
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });

  it('BoundedMap evicts in insertion order, reports evictions, and skips keys deleted explicitly', () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>(3, (key) => evicted.push(key));
    for (const key of ['a', 'b', 'c']) map.set(key, 1);
    map.delete('a');
    map.set('d', 1);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
    map.set('b', 2); // an update is not an insertion
    map.set('e', 1);
    expect([...map.keys()]).toEqual(['c', 'd', 'e']);
    expect(evicted).toEqual(['b']);
    for (let i = 0; i < 10_000; i++) map.set(`k-${i}`, i);
    expect(map.size).toBe(3);
  });

  it('a BoundedMap used as a set of seen ids forgets the oldest once full', () => {
    const ids = new BoundedMap<string, true>(2);
    for (const id of ['a', 'a', 'b', 'c']) ids.set(id, true);
    expect([ids.has('a'), ids.has('b'), ids.has('c'), ids.size]).toEqual([false, true, true, 2]);
  });
});
