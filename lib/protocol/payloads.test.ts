import { describe, expect, it } from 'vitest';
import { KINDS, OPTIONAL_PAYLOAD_KINDS, type Kind } from './kinds';
import { payloadSchemas } from './payloads';
import { DESIGN_EXAMPLES, SPEC_EXAMPLES } from './spec-examples.fixture';

const isOptionalPayloadKind = (kind: Kind) => (OPTIONAL_PAYLOAD_KINDS as readonly Kind[]).includes(kind);

const EXAMPLES = [...SPEC_EXAMPLES, ...DESIGN_EXAMPLES] as unknown as readonly { kind: Kind; id: string; payload?: unknown }[];

function issuesOf(kind: Kind, payload: unknown): string[] {
  const result = payloadSchemas[kind].safeParse(payload);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('payloadSchemas', () => {
  it('has exactly one schema per kind', () => {
    expect(Object.keys(payloadSchemas).sort()).toEqual([...KINDS].sort());
  });

  it('is covered by at least one spec or design example for every kind', () => {
    const covered = new Set(EXAMPLES.map((example) => example.kind));
    expect(KINDS.filter((kind) => !covered.has(kind))).toEqual([]);
  });

  it.each(EXAMPLES.map((example) => [example.kind, example.id, example] as const))('accepts the %s payload of example %s', (kind, _id, example) => {
    expect(issuesOf(kind, example.payload)).toEqual([]);
  });

  it.each(KINDS.map((kind) => [kind]))('lets unknown fields of a %s payload through untouched', (kind) => {
    const example = EXAMPLES.find((candidate) => candidate.kind === kind)!;
    const payload = { ...(example.payload as object), x_vendor_hint: { nested: [1, 2] } };
    const result = payloadSchemas[kind].safeParse(payload);
    expect(result.success).toBe(true);
    expect(result.data).toEqual(payload);
  });

  it.each(KINDS.filter((kind) => !isOptionalPayloadKind(kind)).map((kind) => [kind]))('requires a payload object for %s', (kind) => {
    expect(payloadSchemas[kind].safeParse(undefined).success).toBe(false);
    expect(payloadSchemas[kind].safeParse([]).success).toBe(false);
    expect(payloadSchemas[kind].safeParse('text').success).toBe(false);
  });

  it.each(OPTIONAL_PAYLOAD_KINDS)('lets %s omit its payload or send an empty one', (kind) => {
    expect(payloadSchemas[kind].safeParse(undefined).success).toBe(true);
    expect(payloadSchemas[kind].safeParse({}).success).toBe(true);
    expect(payloadSchemas[kind].safeParse({ hint: 'warm' }).success).toBe(true);
    expect(payloadSchemas[kind].safeParse('now').success).toBe(false);
  });
});

describe('invalid payloads', () => {
  const cases: [string, Kind, unknown, string][] = [
    ['an mcp/request without method', 'mcp/request', { jsonrpc: '2.0', id: 1 }, 'method'],
    ['an mcp/request with an empty method', 'mcp/request', { method: '' }, 'method'],
    ['an mcp/request with jsonrpc 1.0', 'mcp/request', { jsonrpc: '1.0', method: 'tools/list' }, 'jsonrpc'],
    ['an mcp/request with an object id', 'mcp/request', { id: { n: 1 }, method: 'tools/list' }, 'id'],
    ['an mcp/request with string params', 'mcp/request', { method: 'tools/call', params: 'x' }, 'params'],
    ['an mcp/proposal without method', 'mcp/proposal', { params: {} }, 'method'],
    ['an mcp/response with neither result nor error', 'mcp/response', { jsonrpc: '2.0', id: 42 }, 'an MCP response needs "result" or "error"'],
    ['an mcp/response whose error lacks a code', 'mcp/response', { id: 1, error: { message: 'boom' } }, 'error.code'],
    ['an mcp/withdraw with a numeric reason', 'mcp/withdraw', { reason: 3 }, 'reason'],
    ['an mcp/reject with a numeric reason', 'mcp/reject', { reason: 3 }, 'reason'],
    ['a reasoning/start with a numeric message', 'reasoning/start', { message: 1 }, 'message'],
    ['a reasoning/thought whose message is not text', 'reasoning/thought', { message: 7 }, 'message'],
    ['a reasoning/conclusion whose message is not text', 'reasoning/conclusion', { message: { text: 'done' } }, 'message'],
    ['a reasoning/cancel with an object reason', 'reasoning/cancel', { reason: {} }, 'reason'],
    ['a capability/grant without recipient', 'capability/grant', { capabilities: [{ kind: 'chat' }] }, 'recipient'],
    ['a capability/grant with no capabilities', 'capability/grant', { recipient: 'a', capabilities: [] }, 'capabilities'],
    ['a capability/grant with a capability lacking kind', 'capability/grant', { recipient: 'a', capabilities: [{ payload: {} }] }, 'capabilities.0'],
    ['a capability/revoke with neither grant_id nor capabilities', 'capability/revoke', { recipient: 'agent' }, 'a revoke needs "grant_id" or "capabilities"'],
    ['a capability/revoke without recipient', 'capability/revoke', { grant_id: 'grant-789' }, 'recipient'],
    ['a capability/grant-ack without status', 'capability/grant-ack', {}, 'status'],
    ['a space/invite without participant_id', 'space/invite', { initial_capabilities: [] }, 'participant_id'],
    [
      'a space/invite with capabilities that are not an array',
      'space/invite',
      { participant_id: 'x', initial_capabilities: { kind: 'chat' } },
      'initial_capabilities',
    ],
    ['a space/invite-ack without participant_id', 'space/invite-ack', { status: 'created' }, 'participant_id'],
    ['a space/kick without participant_id', 'space/kick', { reason: 'spam' }, 'participant_id'],
    ['a participant/pause with a negative timeout', 'participant/pause', { timeout_seconds: -5 }, 'timeout_seconds'],
    ['a participant/pause with a string timeout', 'participant/pause', { timeout_seconds: '60' }, 'timeout_seconds'],
    ['a participant/status without messages_in_context', 'participant/status', { tokens: 1, max_tokens: 2 }, 'messages_in_context'],
    ['a participant/status with fractional messages_in_context', 'participant/status', { messages_in_context: 1.5 }, 'messages_in_context'],
    ['a participant/status with negative messages_in_context', 'participant/status', { messages_in_context: -1 }, 'messages_in_context'],
    ['a participant/status with string tokens', 'participant/status', { messages_in_context: 1, tokens: '12k' }, 'tokens'],
    ['a participant/request-status with a string fields', 'participant/request-status', { fields: 'tokens' }, 'fields'],
    ['a participant/forget without direction', 'participant/forget', { entries: 10 }, 'direction'],
    ['a participant/forget with direction middle', 'participant/forget', { direction: 'middle' }, 'direction'],
    ['a participant/forget with zero entries', 'participant/forget', { direction: 'oldest', entries: 0 }, 'entries'],
    ['a participant/compact with a string target', 'participant/compact', { target_tokens: 'half' }, 'target_tokens'],
    ['a participant/compact-done with a string skipped', 'participant/compact-done', { skipped: 'yes' }, 'skipped'],
    ['a stream/request without direction', 'stream/request', { expected_size_bytes: 1 }, 'direction'],
    ['a stream/request with a string target', 'stream/request', { direction: 'upload', target: 'agent-2' }, 'target'],
    ['a stream/open without stream_id', 'stream/open', { encoding: 'binary' }, 'stream_id'],
    ['a stream/close with a numeric stream_id', 'stream/close', { stream_id: 42 }, 'stream_id'],
    ['a chat without text', 'chat', { format: 'plain' }, 'text'],
    ['a chat with format html', 'chat', { text: '<b>hi</b>', format: 'html' }, 'format'],
    ['a chat/acknowledge with a numeric status', 'chat/acknowledge', { status: 1 }, 'status'],
    ['a chat/cancel with a numeric reason', 'chat/cancel', { reason: 1 }, 'reason'],
    ['a system/presence with event rejoin', 'system/presence', { event: 'rejoin', participant: { id: 'a' } }, 'event'],
    ['a system/presence without participant', 'system/presence', { event: 'join' }, 'participant'],
    ['a system/welcome without your capabilities', 'system/welcome', { you: { id: 'a' }, participants: [] }, 'you.capabilities'],
    ['a system/welcome without participants', 'system/welcome', { you: { id: 'a', capabilities: [] } }, 'participants'],
    [
      'a system/welcome with an active stream lacking owner',
      'system/welcome',
      { you: { id: 'a', capabilities: [] }, participants: [], active_streams: [{ stream_id: 's', direction: 'upload', authorized_writers: [] }] },
      'active_streams.0.owner',
    ],
    ['a system/error without error', 'system/error', { message: 'oops' }, 'error'],
    ['a system/error with malformed issues', 'system/error', { error: 'invalid_envelope', issues: ['bad'] }, 'issues.0'],
  ];

  it.each(cases)('refuses %s', (_name, kind, payload, expected) => {
    const issues = issuesOf(kind, payload);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.join('\n')).toContain(expected);
  });
});

describe('capability patterns in payloads', () => {
  it('accept MCPx shorthand strings, kind arrays and nested payload patterns', () => {
    expect(
      issuesOf('capability/grant', {
        recipient: 'agent',
        capabilities: ['mcp/request:tools/*', { kind: ['chat', 'chat/*'] }, { kind: 'mcp/request', payload: { method: 'tools/*' } }],
      }),
    ).toEqual([]);
  });

  it('refuse an empty shorthand string and a numeric kind', () => {
    expect(issuesOf('capability/grant', { recipient: 'agent', capabilities: [''] })).not.toEqual([]);
    expect(issuesOf('capability/grant', { recipient: 'agent', capabilities: [{ kind: 7 }] })).not.toEqual([]);
  });
});
