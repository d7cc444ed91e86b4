import { describe, expect, it } from 'vitest';
import { isMcpNotification } from './mcp-payloads';
import { formatIssues, parseEnvelope } from './parse-envelope';
import { reasoningAction, reasoningText } from './reasoning-payloads';
import {
  REF_CONCLUSION,
  REF_REASONING_START,
  REF_THOUGHT_RESPOND,
  REF_THOUGHT_TOOL,
  REF_TOOLS_LIST,
  REFERENCE_SHAPED_ENVELOPES,
} from './reference-shapes.fixture';

describe('a strict envelope with loose payloads: the reference implementation’s shapes', () => {
  it.each(REFERENCE_SHAPED_ENVELOPES.map((envelope) => [envelope.kind, envelope.id, envelope] as const))(
    'accepts its %s %s, as sent and as a complete envelope',
    (_kind, _id, envelope) => {
      for (const inbound of [true, false]) {
        const result = parseEnvelope(envelope, { inbound });
        expect(result.ok ? '' : formatIssues(result.issues)).toBe('');
      }
    },
  );

  it('still refuses what the gateway enforces or routes on: unknown envelope fields, a message that is not text, a request without method, a response without result or error', () => {
    const issues = (value: unknown) => {
      const result = parseEnvelope(value, { inbound: true });
      return result.ok ? '' : formatIssues(result.issues);
    };
    expect(issues({ ...REF_TOOLS_LIST, method: 'tools/list' })).toBe('method: unknown field "method"');
    expect(issues({ ...REF_THOUGHT_TOOL, payload: { message: 42 } })).toMatch(/^payload\.message: /);
    expect(issues({ ...REF_TOOLS_LIST, payload: {} })).toBe('payload.method: Required');
    expect(issues({ kind: 'mcp/response', correlation_id: ['x'], payload: {} })).toMatch(/^payload: an MCP response needs "result" or "error"/);
  });
});

describe('isMcpNotification', () => {
  it.each([
    [{ method: 'notifications/tools/list_changed' }, true],
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, true],
    [{ method: 'tools/list' }, false],
    [{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'add' } }, false],
    [{ jsonrpc: '2.0', id: 3, method: 'notifications/odd-but-framed' }, false],
    [{ jsonrpc: '2.0', id: 'a', method: 'tools/list' }, false],
  ])('%j → %s', (payload, notification) => {
    expect(isMcpNotification(payload)).toBe(notification);
  });
});

describe('reading reasoning in either shape', () => {
  it('takes the spec’s message, else the reference’s reasoning (a thought) or input (a start)', () => {
    expect(reasoningText({ message: 'spec', reasoning: 'ref' })).toBe('spec');
    expect(reasoningText(REF_THOUGHT_TOOL.payload)).toBe('I should see which notes exist before answering.');
    expect(reasoningText(REF_REASONING_START.payload)).toBe('list the notes');
    expect(reasoningText(REF_CONCLUSION.payload)).toBeUndefined();
    expect(reasoningText(undefined)).toBeUndefined();
  });

  it('reads a ReAct step’s action and its input', () => {
    expect(reasoningAction(REF_THOUGHT_TOOL.payload)).toEqual({
      action: 'tool',
      input: { tool: 'files/list_directory', arguments: { path: '.' }, toolCallId: 'call_1' },
    });
    expect(reasoningAction(REF_THOUGHT_RESPOND.payload)).toEqual({ action: 'respond', input: 'There are two notes: a.md and b.md.' });
    expect(reasoningAction({ message: 'no action' })).toBeUndefined();
  });
});
