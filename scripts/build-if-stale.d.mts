/** See build-if-stale.mjs. */
export function buildIfStale(distDir?: string): boolean;
