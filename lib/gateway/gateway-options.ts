/**
 * Limits and timings of the gateway, each with its default. A space config's `limits` block and the
 * `createGateway` options override them; nothing else in the gateway hard-codes a number.
 */
export interface GatewayLimits {
  /** Largest accepted text or binary frame, in bytes. Larger frames get `message_too_large`. @default 1 MiB */
  maxFrameBytes: number;
  /**
   * Frames above this many bytes are not even buffered: `ws` closes the socket with 1009. It protects memory
   * from a peer that streams gigabytes, while frames between the two limits still get a polite error.
   * @default 4 × maxFrameBytes
   */
  hardFrameBytes: number;
  /** Sustained envelopes per second a participant may send (token bucket refill). @default 200 */
  ratePerSecond: number;
  /** Bucket size: how many envelopes may arrive in a burst. @default 400 */
  rateBurst: number;
  /** A connection that has not authenticated by then is closed (4401). @default 5000 */
  joinTimeoutMs: number;
  /** Server ping interval; a peer that has not answered the previous ping by the next one is dropped. @default 30000 */
  pingIntervalMs: number;
  /** A socket whose unsent output exceeds this is a consumer that cannot keep up: it is disconnected. @default 8 MiB */
  maxBufferedBytes: number;
  /** Envelopes kept per space for catch-up and `GET /participants/{id}/messages`. @default 1000 */
  historySize: number;
  /** Extra browser origins allowed to open `/ws`, besides the page's own origin. @default [] */
  allowedOrigins: string[];
  /** A stream whose owner left is closed by the gateway unless the owner is back within this. @default 10000 */
  streamOrphanGraceMs: number;
}

export const DEFAULT_LIMITS: Readonly<GatewayLimits> = Object.freeze({
  maxFrameBytes: 1024 * 1024,
  hardFrameBytes: 4 * 1024 * 1024,
  ratePerSecond: 200,
  rateBurst: 400,
  joinTimeoutMs: 5000,
  pingIntervalMs: 30_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  historySize: 1000,
  allowedOrigins: [],
  streamOrphanGraceMs: 10_000,
});

/** The id the gateway signs its own envelopes with (`from` of system/* messages). */
export const GATEWAY_ID = 'system:gateway';

export function resolveLimits(...overrides: Array<Partial<GatewayLimits> | undefined>): GatewayLimits {
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, allowedOrigins: [...DEFAULT_LIMITS.allowedOrigins] };
  for (const o of overrides) if (o) Object.assign(limits, stripUndefined(o));
  if (!overrides.some((o) => o?.hardFrameBytes !== undefined)) limits.hardFrameBytes = 4 * limits.maxFrameBytes;
  return limits;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
