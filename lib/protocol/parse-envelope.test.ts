import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { envelopeSchema, inboundEnvelopeSchema, type AnyEnvelope, type Envelope } from './envelope';
import { isKind, KINDS, REQUIRED_ENVELOPE_FIELDS, type Kind } from './kinds';
import { formatIssues, isEnvelope, parseEnvelope } from './parse-envelope';
import { payloadSchemas } from './payloads';
import { DESIGN_EXAMPLES, SPEC_EXAMPLES } from './spec-examples.fixture';

const TS = '2025-08-26T14:00:00Z';

const chat = {
  protocol: 'mew/v0.4',
  id: 'env-chat-1',
  ts: TS,
  from: 'user-alice',
  kind: 'chat',
  payload: { text: 'Hello everyone!', format: 'plain' },
};

function issuesOf(value: unknown, inbound = false) {
  const result = parseEnvelope(value, { inbound });
  return result.ok ? [] : result.issues;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('parseEnvelope with spec examples', () => {
  it.each(SPEC_EXAMPLES.map((example) => [example.kind, example.id, example] as const))(
    'accepts the %s example %s as a client-submitted envelope',
    (_kind, _id, example) => {
      expect(issuesOf(example, true)).toEqual([]);
    },
  );

  it.each(SPEC_EXAMPLES.map((example) => [example.kind, example.id, example] as const))(
    'accepts the %s example %s as a full envelope once it has a timestamp',
    (_kind, _id, example) => {
      expect(issuesOf({ ts: TS, ...example })).toEqual([]);
    },
  );

  it.each(DESIGN_EXAMPLES.map((example) => [example.kind, example] as const))('accepts our gateway’s %s envelope', (_kind, example) => {
    expect(issuesOf(example)).toEqual([]);
  });

  it('refuses a spec example without ts as a full envelope, saying ts is required', () => {
    expect(issuesOf(SPEC_EXAMPLES[0])).toEqual([{ path: ['ts'], message: 'Required' }]);
  });
});

describe('parseEnvelope results', () => {
  it('returns the very object it was given', () => {
    const result = parseEnvelope(chat);
    expect(result.ok && result.envelope).toBe(chat);
  });

  it('keeps unknown payload fields, however deep', () => {
    const welcome = {
      ...DESIGN_EXAMPLES[1],
      payload: {
        you: { id: 'late-joiner', capabilities: [{ kind: 'chat', note: 'x' }], avatar: 'cat.png' },
        participants: [{ id: 'agent-1', role: 'worker' }],
        server_version: '1.2.3',
      },
    };
    const copy = structuredClone(welcome);
    const result = parseEnvelope(welcome);
    expect(result.ok).toBe(true);
    expect(result.ok && result.envelope).toEqual(copy);
  });

  it('never mutates its input, even when it is deeply frozen', () => {
    const frozen = deepFreeze(structuredClone({ ...chat, payload: { text: 'hi', extra: { a: [1] } } }));
    expect(parseEnvelope(frozen).ok).toBe(true);
    expect(parseEnvelope(deepFreeze({ ...chat, payload: { format: 'html' } })).ok).toBe(false);
  });

  it('returns a client envelope without payload as is when its kind allows that', () => {
    const clear = { protocol: 'mew/v0.4', id: 'clear-1', ts: TS, from: 'orchestrator', to: ['agent-1'], kind: 'participant/clear' };
    const result = parseEnvelope(clear);
    expect(result.ok && result.envelope).toBe(clear);
  });

  it('accepts a client-submitted envelope of just kind and payload in inbound mode only', () => {
    const submitted = { kind: 'chat', payload: { text: 'Hello world' } };
    expect(parseEnvelope(submitted, { inbound: true }).ok).toBe(true);
    expect(issuesOf(submitted).map((issue) => issue.path)).toEqual([['protocol'], ['id'], ['ts'], ['from']]);
  });
});

describe('parseEnvelope issues', () => {
  it('names an unknown kind at path kind and does not accept it', () => {
    expect(issuesOf({ ...chat, kind: 'foo/bar' })).toEqual([{ path: ['kind'], message: 'unknown kind "foo/bar"' }]);
    expect(issuesOf({ ...chat, kind: 'system/join' }, true)).toEqual([{ path: ['kind'], message: 'unknown kind "system/join"' }]);
  });

  it('reports a missing kind as required', () => {
    const { kind: _kind, ...rest } = chat;
    expect(issuesOf(rest)).toEqual([{ path: ['kind'], message: 'Required' }]);
  });

  it('reports each extra top-level field at its own path', () => {
    expect(issuesOf({ ...chat, type: 'join', token: 'secret' })).toEqual([
      { path: ['type'], message: 'unknown field "type"' },
      { path: ['token'], message: 'unknown field "token"' },
    ]);
  });

  it('explains a wrong protocol version', () => {
    expect(issuesOf({ ...chat, protocol: 'mew/v0.3' })).toEqual([
      { path: ['protocol'], message: 'unsupported protocol "mew/v0.3": this gateway speaks "mew/v0.4"' },
    ]);
    expect(issuesOf({ kind: 'chat', protocol: 'mew/v0.3', payload: { text: 'hi' } }, true)).toHaveLength(1);
  });

  it('refuses correlation_id given as a string', () => {
    expect(issuesOf({ ...chat, correlation_id: 'env-1' })).toEqual([{ path: ['correlation_id'], message: 'Invalid input: expected array, received string' }]);
  });

  it.each([
    ['mcp/response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['mcp/withdraw', { reason: 'no_longer_needed' }],
    ['mcp/reject', { reason: 'unsafe' }],
    ['chat/acknowledge', { status: 'received' }],
    ['chat/cancel', { reason: 'handled elsewhere' }],
    ['participant/compact-done', { freed_tokens: 10 }],
  ])('requires correlation_id on %s, where the spec says it MUST reference what it answers', (kind, payload) => {
    const reply = { kind, payload };
    expect(issuesOf(reply, true)).toEqual([{ path: ['correlation_id'], message: expect.stringMatching(/^Required: .*MUST reference/) }]);
    expect(issuesOf({ ...reply, correlation_id: [] }, true).map((issue) => issue.path)).toEqual([['correlation_id']]);
    expect(parseEnvelope({ ...reply, correlation_id: ['env-1'] }, { inbound: true }).ok).toBe(true);
  });

  it('requires context on reasoning/cancel, naming the sequence it ends', () => {
    const cancel = { kind: 'reasoning/cancel', payload: { reason: 'superseded' } };
    expect(issuesOf(cancel, true)).toEqual([{ path: ['context'], message: expect.stringMatching(/^Required: reasoning\/cancel/) }]);
    expect(parseEnvelope({ ...cancel, context: 'reason-start-1' }, { inbound: true }).ok).toBe(true);
  });

  it('refuses to when it is not an array, and empty names inside it', () => {
    expect(issuesOf({ ...chat, to: 'agent-1' }).map((issue) => issue.path)).toEqual([['to']]);
    expect(issuesOf({ ...chat, to: ['agent-1', ''] })).toEqual([{ path: ['to', 1], message: 'must not be empty' }]);
  });

  it('refuses a timestamp that is not RFC 3339', () => {
    expect(issuesOf({ ...chat, ts: 1756216800000 }).map((issue) => issue.path)).toEqual([['ts']]);
    expect(issuesOf({ ...chat, ts: '2025-08-26 14:00' })).toEqual([{ path: ['ts'], message: 'must be an RFC 3339 timestamp, e.g. "2025-08-26T14:00:00Z"' }]);
  });

  it('puts payload issues under payload', () => {
    expect(issuesOf({ ...chat, payload: { format: 'plain' } })).toEqual([{ path: ['payload', 'text'], message: 'Required' }]);
  });

  it('reports a missing payload as required for kinds that need one', () => {
    const { payload: _payload, ...rest } = chat;
    expect(issuesOf(rest)).toEqual([{ path: ['payload'], message: 'Required' }]);
  });

  it('lists envelope and payload problems together', () => {
    const issues = issuesOf({ ...chat, from: '', extra: true, payload: { text: 5 } });
    expect(issues.map((issue) => issue.path)).toEqual([['from'], ['extra'], ['payload', 'text']]);
  });

  it('explains a bad capability through the pattern branch it resembles', () => {
    const grant = {
      ...chat,
      kind: 'capability/grant',
      payload: { recipient: 'agent', capabilities: [{ kind: 'chat' }, { kind: 7 }] },
    };
    expect(issuesOf(grant)).toEqual([{ path: ['payload', 'capabilities', 1, 'kind'], message: 'expected a kind pattern string or an array of them' }]);
  });

  it('explains a refine failure at the payload', () => {
    expect(issuesOf({ ...chat, kind: 'mcp/response', correlation_id: ['r-1'], payload: { id: 1 } })).toEqual([
      { path: ['payload'], message: 'an MCP response needs "result" or "error"' },
    ]);
  });

  it.each([null, undefined, 'chat', 42, [], [chat], true])('refuses %j with a root issue', (value) => {
    const issues = issuesOf(value);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]!.path).toEqual([]);
  });
});

describe('formatIssues', () => {
  it('joins issues into one line with readable paths', () => {
    expect(
      formatIssues([
        { path: ['payload', 'capabilities', 0, 'kind'], message: 'expected a kind pattern string' },
        { path: ['to'], message: 'Required' },
        { path: [], message: 'Invalid input: expected object, received null' },
      ]),
    ).toBe('payload.capabilities[0].kind: expected a kind pattern string; to: Required; Invalid input: expected object, received null');
  });

  it('formats what parseEnvelope reports', () => {
    const result = parseEnvelope({ ...chat, payload: {} });
    expect(!result.ok && formatIssues(result.issues)).toBe('payload.text: Required');
  });
});

describe('isEnvelope', () => {
  it('is true for a complete envelope and false for a client-submitted one', () => {
    expect(isEnvelope(chat)).toBe(true);
    expect(isEnvelope({ kind: 'chat', payload: { text: 'hi' } })).toBe(false);
  });

  it('narrows to a union discriminated on kind', () => {
    const value: unknown = chat;
    if (isEnvelope(value) && value.kind === 'chat') {
      expectTypeOf(value).toEqualTypeOf<Envelope<'chat'>>();
      expectTypeOf(value.payload.text).toEqualTypeOf<string>();
      expect(value.payload.text).toBe('Hello everyone!');
    } else {
      expect.unreachable();
    }
    expectTypeOf<Envelope<'participant/clear'>['payload']>().toEqualTypeOf<{ [key: string]: unknown } | undefined>();
    expectTypeOf<Envelope<'participant/status'>['payload']['messages_in_context']>().toEqualTypeOf<number>();
    expectTypeOf<AnyEnvelope['kind']>().toEqualTypeOf<Kind>();
  });
});

describe('the fast path', () => {
  // parseEnvelope skips zod's envelope schema for envelopes its own checks accept; it must never accept more.
  const reference = (value: unknown, inbound: boolean): boolean => {
    const schema = inbound ? inboundEnvelopeSchema : envelopeSchema;
    if (!schema.safeParse(value).success) return false;
    const { kind, payload } = value as { kind: unknown; payload: unknown };
    const field = isKind(kind) ? REQUIRED_ENVELOPE_FIELDS.get(kind) : undefined;
    if (field && !(value as Record<string, unknown[] | string | undefined>)[field]?.length) return false;
    return isKind(kind) && payloadSchemas[kind].safeParse(payload).success;
  };

  const envelopeLike = fc.record(
    {
      protocol: fc.constantFrom('mew/v0.4', 'mew/v0.3', '', 4, null),
      id: fc.oneof(fc.constant('env-1'), fc.string({ maxLength: 2 }), fc.integer()),
      ts: fc.oneof(
        fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString()),
        fc.constantFrom(TS, '2025-08-26T14:00:00+02:00', '2025-08-26', '2025-08-26T14:00:00', ''),
        fc.string({ maxLength: 3 }),
        fc.integer(),
      ),
      from: fc.oneof(fc.constant('agent-1'), fc.string({ maxLength: 2 }), fc.constant(null)),
      to: fc.oneof(fc.array(fc.oneof(fc.constant('a'), fc.string({ maxLength: 1 }), fc.integer()), { maxLength: 3 }), fc.string(), fc.constant(null)),
      kind: fc.oneof(fc.constantFrom(...KINDS), fc.constantFrom('foo/bar', 'system/join', '', 'CHAT'), fc.integer()),
      correlation_id: fc.oneof(fc.array(fc.oneof(fc.constant('x'), fc.string({ maxLength: 1 })), { maxLength: 2 }), fc.string(), fc.constant({})),
      context: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null)),
      payload: fc.oneof(
        fc.constantFrom({}, { text: 'hi' }, { method: 'tools/list' }, { messages_in_context: 0 }, { result: 1 }, [], 'x'),
        fc.constant(undefined),
      ),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  );

  it('accepts exactly what the zod schemas accept, for full and inbound envelopes', () => {
    fc.assert(
      fc.property(envelopeLike, fc.boolean(), (value, inbound) => {
        expect(parseEnvelope(value, { inbound }).ok).toBe(reference(value, inbound));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with zod on generated envelopes that are mostly valid', () => {
    const mostlyValid = fc.record({
      protocol: fc.constant('mew/v0.4'),
      id: fc.string({ minLength: 0, maxLength: 4 }),
      ts: fc.constant(TS),
      from: fc.string({ maxLength: 4 }),
      kind: fc.constantFrom(...KINDS),
      payload: fc.dictionary(fc.constantFrom('text', 'method', 'messages_in_context', 'status', 'recipient', 'direction'), fc.oneof(fc.string(), fc.nat())),
    });
    fc.assert(
      fc.property(mostlyValid, (value) => {
        expect(parseEnvelope(value).ok).toBe(reference(value, false));
      }),
      { numRuns: 3000 },
    );
  });
});
