// The names on MEW's spans and metrics live in lib/protocol/trace-attributes.ts, shared with the SDK's own spans.
export * from '../protocol/trace-attributes';
