/**
 * An invalid capability, reported when it is loaded (config, grant, invite), never at match time.
 * `path` locates the offending value inside the input; `message` says what is wrong with it.
 *
 * @example
 * try {
 *   normalizeCapabilities([{ kind: 'chat' }, { kind: 'mcp/request', payload: { method: '/(/' } }]);
 * } catch (e) {
 *   if (e instanceof CapabilityError) console.log(e.path); // [1, 'payload', 'method']
 * }
 */
export class CapabilityError extends Error {
  readonly path: (string | number)[];

  constructor(message: string, path: (string | number)[] = []) {
    super(message);
    this.name = 'CapabilityError';
    this.path = path;
  }
}
