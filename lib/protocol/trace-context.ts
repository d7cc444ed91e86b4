// W3C Trace Context carried by a participant in an envelope: the trace its chain continues. Read by the gateway's
// telemetry (lib/telemetry) and by the SDK (lib/sdk), which also writes it; plain strings, no OpenTelemetry code.

/** A remote parent, as a participant's `traceparent` names it. */
export interface CarriedTraceContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  /** Its `tracestate`, when it carries one beside the `traceparent`. */
  traceState?: string;
}

/** `version-traceid-parentid-flags` (W3C Trace Context §3.2), lower-case hex; version `ff` is invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** What a `traceparent` header value names, or undefined when it is not a valid one. */
export function parseTraceparent(value: unknown, traceState?: unknown): CarriedTraceContext | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match;
  // Version 00 has exactly four fields; a later version may add some (kept parseable, as the specification asks).
  if (version === 'ff' || (version === '00' && value.trim().length !== 55)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 0xff,
    ...(typeof traceState === 'string' && traceState.length > 0 && traceState.length <= 512 && { traceState }),
  };
}

/** The version-00 `traceparent` of a span (what `parseTraceparent` reads back). */
export function formatTraceparent({ traceId, spanId, traceFlags }: Pick<CarriedTraceContext, 'traceId' | 'spanId' | 'traceFlags'>): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The trace context a participant sent with an envelope: its `context` field when that is a `traceparent`, else
 * `payload._meta.traceparent`, else `payload.params._meta.traceparent` (where MCP keeps request metadata), each with
 * the `tracestate` beside it.
 */
export function carriedTraceContext(envelope: { context?: string; payload?: unknown }): CarriedTraceContext | undefined {
  const inContext = envelope.context === undefined ? undefined : parseTraceparent(envelope.context);
  if (inContext) return inContext;
  const payload = envelope.payload;
  if (!isRecord(payload)) return undefined;
  for (const meta of [payload._meta, isRecord(payload.params) ? payload.params._meta : undefined]) {
    if (isRecord(meta) && meta.traceparent !== undefined) {
      const found = parseTraceparent(meta.traceparent, meta.tracestate);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * An MCP call's params with `_meta.traceparent` (and `tracestate`) set to `carried`, everything else kept (MCP lets
 * every request carry `params._meta`). A copy: the caller's params are not changed.
 */
export function paramsWithTraceContext(params: unknown, carried: CarriedTraceContext): Record<string, unknown> | undefined {
  if (params !== undefined && !isRecord(params)) return undefined;
  const meta = isRecord(params?._meta) ? params._meta : {};
  const { tracestate: _previous, ...kept } = meta;
  return {
    ...params,
    _meta: { ...kept, traceparent: formatTraceparent(carried), ...(carried.traceState !== undefined && { tracestate: carried.traceState }) },
  };
}
