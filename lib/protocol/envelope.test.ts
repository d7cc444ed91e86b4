import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { envelopeSchema, inboundEnvelopeSchema, RFC3339_PATTERN } from './envelope';

const valid = {
  protocol: 'mew/v0.4',
  id: '2f6b6e70-7b36-4b8b-9ad8-7c4f7d0e2d0b',
  ts: '2025-08-26T14:00:00Z',
  from: 'robot-alpha',
  to: ['coordinator'],
  kind: 'mcp/request',
  correlation_id: ['env-1'],
  context: 'workflow-123/step-1',
  payload: { method: 'tools/list' },
};

function messagesOf(value: unknown, schema: z.ZodType = envelopeSchema): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('envelopeSchema', () => {
  it('accepts the spec §3 envelope with every field', () => {
    expect(envelopeSchema.safeParse(valid).success).toBe(true);
  });

  it('accepts an envelope with only the required fields', () => {
    const { to: _to, correlation_id: _correlation, context: _context, ...minimal } = valid;
    expect(envelopeSchema.safeParse(minimal).success).toBe(true);
  });

  it('accepts an empty to array as broadcast', () => {
    expect(envelopeSchema.safeParse({ ...valid, to: [] }).success).toBe(true);
  });

  it('refuses an unknown top-level field because the envelope is strict', () => {
    expect(messagesOf({ ...valid, extra: 1 })).toEqual([': Unrecognized key: "extra"']);
  });

  it('refuses another protocol version with a message naming both versions', () => {
    expect(messagesOf({ ...valid, protocol: 'mew/v0.3' })).toEqual(['protocol: unsupported protocol "mew/v0.3": this gateway speaks "mew/v0.4"']);
  });

  it('requires protocol, id, ts, from and kind', () => {
    for (const field of ['protocol', 'id', 'ts', 'from', 'kind'] as const) {
      const { [field]: _, ...rest } = valid;
      expect(envelopeSchema.safeParse(rest).success, field).toBe(false);
    }
  });

  it('refuses empty ids and participant names', () => {
    expect(envelopeSchema.safeParse({ ...valid, id: '' }).success).toBe(false);
    expect(envelopeSchema.safeParse({ ...valid, from: '' }).success).toBe(false);
    expect(envelopeSchema.safeParse({ ...valid, to: [''] }).success).toBe(false);
  });

  it('refuses to when it is not an array', () => {
    expect(envelopeSchema.safeParse({ ...valid, to: 'coordinator' }).success).toBe(false);
  });

  it('refuses correlation_id given as a single string instead of an array', () => {
    expect(envelopeSchema.safeParse({ ...valid, correlation_id: 'env-1' }).success).toBe(false);
  });

  it('refuses a context that is not a string', () => {
    expect(envelopeSchema.safeParse({ ...valid, context: ['a'] }).success).toBe(false);
  });

  it('refuses an unknown kind, naming it', () => {
    expect(messagesOf({ ...valid, kind: 'foo/bar' })).toEqual(['kind: unknown kind "foo/bar"']);
  });

  it('leaves payload validation to the payload schemas', () => {
    expect(envelopeSchema.safeParse({ ...valid, payload: 'anything' }).success).toBe(true);
  });
});

describe('inboundEnvelopeSchema', () => {
  it('accepts a client envelope with only kind and payload', () => {
    expect(inboundEnvelopeSchema.safeParse({ kind: 'chat', payload: { text: 'Hello world' } }).success).toBe(true);
  });

  it('still refuses a wrong protocol version when one is given', () => {
    expect(messagesOf({ protocol: 'mew/v0.3', kind: 'chat', payload: { text: 'hi' } }, inboundEnvelopeSchema)).toEqual([
      'protocol: unsupported protocol "mew/v0.3": this gateway speaks "mew/v0.4"',
    ]);
  });

  it('still checks the fields a client chose to send', () => {
    expect(inboundEnvelopeSchema.safeParse({ kind: 'chat', ts: 'yesterday', payload: {} }).success).toBe(false);
    expect(inboundEnvelopeSchema.safeParse({ kind: 'chat', id: '', payload: {} }).success).toBe(false);
  });

  it('is as strict about unknown fields as the full envelope', () => {
    expect(inboundEnvelopeSchema.safeParse({ kind: 'chat', payload: {}, type: 'join' }).success).toBe(false);
  });
});

describe('RFC3339_PATTERN', () => {
  it.each([
    '2025-08-26T14:00:00Z',
    '2025-08-26T14:00:00.123Z',
    '2025-08-26T14:00:00.123456789Z',
    '2025-08-26T14:00:00+02:00',
    '2025-08-26T14:00:00.5-05:30',
    '2025-08-26t14:00:00z',
    '2016-12-31T23:59:60Z',
  ])('accepts %s', (ts) => {
    expect(RFC3339_PATTERN.test(ts)).toBe(true);
  });

  it.each([
    '2025-08-26',
    '2025-08-26T14:00:00',
    '2025-08-26 14:00:00Z',
    '2025-13-26T14:00:00Z',
    '2025-08-26T24:00:00Z',
    '2025-08-26T14:00:00+0200',
    '2025-08-26T14:00:00.Z',
    '1756216800000',
  ])('refuses %s', (ts) => {
    expect(RFC3339_PATTERN.test(ts)).toBe(false);
  });
});
