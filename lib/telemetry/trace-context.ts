// W3C Trace Context carried in an envelope: lib/protocol/trace-context.ts, shared with the SDK, which writes it.
export { carriedTraceContext, parseTraceparent, type CarriedTraceContext } from '../protocol/trace-context';
