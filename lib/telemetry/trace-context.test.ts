import { describe, expect, it } from 'vitest';
import { carriedTraceContext, parseTraceparent } from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C trace context carried in an envelope', () => {
  it('parses a valid traceparent and refuses invalid ones', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`, 'vendor=x')).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 0, traceState: 'vendor=x' });
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-future`)).toMatchObject({ traceId: TRACE });
    for (const invalid of [
      `ff-${TRACE}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      'workflow-123/step-1',
      42,
    ]) {
      expect(parseTraceparent(invalid)).toBeUndefined();
    }
  });

  it("reads the envelope's context first, then payload._meta, then payload.params._meta", () => {
    const parent = `00-${TRACE}-${SPAN}-01`;
    expect(carriedTraceContext({ context: parent, payload: {} })?.spanId).toBe(SPAN);
    expect(carriedTraceContext({ payload: { _meta: { traceparent: parent, tracestate: 'a=b' } } })).toMatchObject({ spanId: SPAN, traceState: 'a=b' });
    expect(carriedTraceContext({ context: 'reasoning-1', payload: { params: { _meta: { traceparent: parent } } } })?.traceId).toBe(TRACE);
    expect(carriedTraceContext({ context: 'reasoning-1', payload: { params: [] } })).toBeUndefined();
  });
});
