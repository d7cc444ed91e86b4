import { z } from 'zod';

const MiB = 1024 * 1024;

/**
 * Limits and timings of the gateway: one schema, whose defaults are the documented ones and whose output is the
 * `GatewayLimits` type. A space config's `limits` block (the same names in snake_case) and the `createGateway`
 * options override them; nothing else in the gateway hard-codes a number.
 */
const limitsShape = {
  /** Largest accepted text or binary frame, in bytes. Larger frames get `message_too_large`. @default 1 MiB */
  maxFrameBytes: z.number().int().positive().default(MiB),
  /**
   * Frames above this many bytes are not even buffered: `ws` closes the socket with 1009. It protects memory
   * from a peer that streams gigabytes, while frames between the two limits still get a polite error.
   * @default 4 × maxFrameBytes
   */
  hardFrameBytes: z.number().int().positive().optional(),
  /**
   * Deepest nesting of objects and arrays in a JSON frame (the envelope's own levels included); deeper frames get
   * `invalid_envelope`. Real payloads stay far below it; beyond a few thousand levels every recursive step on the
   * message (serialising it for fan-out, hashing it for the audit) would fail. @default 64
   */
  maxJsonDepth: z.number().int().positive().default(64),
  /** Sustained envelopes per second a participant may send (token bucket refill). @default 200 */
  ratePerSecond: z.number().positive().default(200),
  /** Bucket size: how many envelopes may arrive in a burst. @default 400 */
  rateBurst: z.number().int().positive().default(400),
  /** A connection that has not authenticated by then is closed (4401). @default 5000 */
  joinTimeoutMs: z.number().int().positive().default(5000),
  /** Server ping interval; a peer that has not answered the previous ping by the next one is dropped. @default 30000 */
  pingIntervalMs: z.number().int().positive().default(30_000),
  /** A socket whose unsent output exceeds this is a consumer that cannot keep up: it is disconnected. @default 8 MiB */
  maxBufferedBytes: z
    .number()
    .int()
    .positive()
    .default(8 * MiB),
  /** Envelopes kept per space for catch-up and `GET /participants/{id}/messages` (in memory and in the database). @default 1000 */
  historySize: z.number().int().positive().default(1000),
  /** Extra browser origins allowed to open `/ws`, besides the page's own origin. @default [] */
  allowedOrigins: z.array(z.string()).default(() => []),
  /**
   * Live connections one participant may hold at once (tabs, devices); a newer one beyond it closes the oldest
   * (4409). A connection that asks for `exclusive` replaces all the others. @default 8
   */
  maxConnectionsPerParticipant: z.number().int().positive().default(8),
  /** A stream whose owner left is closed by the gateway unless the owner is back within this. @default 10000 */
  streamOrphanGraceMs: z.number().int().nonnegative().default(10_000),
};

export const gatewayLimitsSchema = z
  .strictObject(limitsShape)
  .transform((limits) => ({ ...limits, hardFrameBytes: limits.hardFrameBytes ?? 4 * limits.maxFrameBytes }));

export type GatewayLimits = z.output<typeof gatewayLimitsSchema>;
/** What may be overridden (every field optional). */
export type GatewayLimitsInput = z.input<typeof gatewayLimitsSchema>;

export const DEFAULT_LIMITS: Readonly<GatewayLimits> = Object.freeze(gatewayLimitsSchema.parse({}));

/** The id the gateway signs its own envelopes with (`from` of system/* messages). */
export { GATEWAY_ID } from '../protocol/kinds';

/**
 * Security events (`system/security-event`) told to operators per offender: a steady few a second and a small
 * burst; the rest are counted into the next event's `suppressed`, so a flood of refusals cannot flood operators.
 */
export const SECURITY_EVENTS_PER_SECOND = 2;
export const SECURITY_EVENT_BURST = 10;

/**
 * `?coalesce=<ms>`: how long a coalescing connection's routine envelopes may wait to be sent together. The default
 * keeps a dashboard at ≤ 10 Hz; a number outside the range is clamped to it (anything else is refused with 400).
 */
export const COALESCE_DEFAULT_MS = 100;
export const COALESCE_MIN_MS = 10;
export const COALESCE_MAX_MS = 10_000;
/** A held batch is sent before its window ends once it is this large: it bounds the memory held and the frame. */
export const COALESCE_MAX_BATCH_BYTES = MiB;

/** The defaults with each override applied in turn (undefined fields change nothing). Throws a ZodError for a bad value. */
export function resolveLimits(...overrides: Array<GatewayLimitsInput | undefined>): GatewayLimits {
  const merged: Record<string, unknown> = {};
  for (const o of overrides) if (o) for (const [key, value] of Object.entries(o)) if (value !== undefined) merged[key] = value;
  return gatewayLimitsSchema.parse(merged);
}
