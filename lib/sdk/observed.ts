/**
 * An outcome is often not awaited (the sender watches the space instead): mark it handled so a refusal or timeout
 * nobody asked about is not an unhandled rejection, while whoever awaits it still gets the error.
 *
 * @example
 * return { envelope, outcome: observed(reply) };
 */
export function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
