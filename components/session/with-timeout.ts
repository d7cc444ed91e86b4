/**
 * `promise`, or a rejection with `Error(message)` once `ms` have passed without it settling: every button that waits
 * for something (the browser, a service worker, a push service, the server) says what happened within a bound.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `12 s`: a bound in words. */
export function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
