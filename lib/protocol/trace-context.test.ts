import { describe, expect, it } from 'vitest';
import { carriedTraceContext, formatTraceparent, paramsWithTraceContext, parseTraceparent } from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('writing W3C trace context into an MCP call', () => {
  it('formats a traceparent that parses back', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(parseTraceparent(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0 }))).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 0 });
  });

  it("puts it in params._meta, keeping the call's other metadata and leaving the caller's params unchanged", () => {
    const params = { name: 'write_file', arguments: { path: 'a' }, _meta: { progressToken: 7, traceparent: 'stale', tracestate: 'old=1' } };
    const traced = paramsWithTraceContext(params, { traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(traced).toEqual({ name: 'write_file', arguments: { path: 'a' }, _meta: { progressToken: 7, traceparent: `00-${TRACE}-${SPAN}-01` } });
    expect(params._meta.traceparent).toBe('stale');
    expect(carriedTraceContext({ payload: { method: 'tools/call', params: traced } })).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(paramsWithTraceContext(undefined, { traceId: TRACE, spanId: SPAN, traceFlags: 1, traceState: 'a=b' })).toEqual({
      _meta: { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'a=b' },
    });
    // JSON-RPC positional params have no room for it.
    expect(paramsWithTraceContext([1, 2], { traceId: TRACE, spanId: SPAN, traceFlags: 1 })).toBeUndefined();
  });
});
