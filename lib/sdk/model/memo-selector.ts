import type { SpaceState } from './space-state';
import { SELECTOR_CACHE_SIZE } from './store-defaults';

/**
 * Makes a selector whose result stays the same object until its inputs change: required for
 * `useStore(store, selector)`, where a fresh array on every call would re-render forever.
 *
 * `deps` picks the state parts the result depends on; the first must be an object (a slice), which keys a WeakMap so
 * several stores can share the selector and old slices are collected. Per slice, up to `SELECTOR_CACHE_SIZE`
 * argument combinations (keyed by `keyOf`, JSON by default) are kept.
 */
export function memoSelector<A extends unknown[], R>(
  deps: (state: SpaceState) => readonly [object, ...unknown[]],
  compute: (state: SpaceState, ...args: A) => R,
  keyOf: (args: A) => string = (args) => (args.length === 0 ? '' : JSON.stringify(args)),
): (state: SpaceState, ...args: A) => R {
  const cache = new WeakMap<object, Map<string, { rest: readonly unknown[]; value: R }>>();
  return (state, ...args) => {
    const [first, ...rest] = deps(state);
    let byKey = cache.get(first);
    if (!byKey) {
      byKey = new Map();
      cache.set(first, byKey);
    }
    const key = keyOf(args);
    const hit = byKey.get(key);
    if (hit && hit.rest.length === rest.length && hit.rest.every((d, i) => d === rest[i])) return hit.value;
    const value = compute(state, ...args);
    byKey.delete(key);
    byKey.set(key, { rest, value });
    if (byKey.size > SELECTOR_CACHE_SIZE) byKey.delete(byKey.keys().next().value as string);
    return value;
  };
}
