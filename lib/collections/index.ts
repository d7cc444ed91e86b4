/**
 * Bounded collections shared by every layer (gateway, SDK, store): a ring of the newest items and a map that forgets
 * its oldest entries. Framework-free and isomorphic, so the browser bundles them too.
 */
export { BoundedMap } from './bounded-map';
export { RingBuffer } from './ring-buffer';
