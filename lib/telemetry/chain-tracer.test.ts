import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../protocol';
import { ChainTracer } from './chain-tracer';
import type { DeciderKind, Decision } from './telemetry-attributes';

// The chain tracer alone, fed envelopes as the space routes them, its spans kept in memory; fake timers for deadlines.

let seq = 0;
function envelope(kind: string, from: string, fields: Record<string, unknown> = {}): Envelope {
  return { protocol: 'mew/v0.4', id: `e${++seq}`, ts: new Date().toISOString(), from, kind, payload: {}, ...fields } as Envelope;
}
const proposal = (fields: Record<string, unknown> = {}, payload: Record<string, unknown> = {}) =>
  envelope('mcp/proposal', 'agent', {
    to: ['tools'],
    payload: { method: 'tools/call', params: { name: 'write_file', arguments: { path: 'a' } }, ...payload },
    ...fields,
  });

describe('the chain tracer', () => {
  let exporter: InMemorySpanExporter;
  let provider: TracerProvider;
  let decisions: [Decision, DeciderKind, number][];
  let tracer: ChainTracer;
  /** What the space retains: every envelope observed. */
  let routed: Envelope[];
  const observe = (e: Envelope) => {
    routed.push(e);
    tracer.observe(e);
  };
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-12-01T10:00:00Z') });
    exporter = new InMemorySpanExporter();
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    decisions = [];
    tracer = new ChainTracer({
      space: 'room',
      tracer: provider.getTracer('test'),
      decisions: { decided: (decision, decider, seconds) => decisions.push([decision, decider, seconds]) },
      captureContent: false,
      supervisor: () => 'rules',
      now: () => Date.now(),
      retained: (id) => routed.find((e) => e.id === id),
    });
    routed = [];
  });
  afterEach(() => vi.useRealTimers());

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().find((s) => s.name === name) as ReadableSpan;

  it("expires a proposal at its proposer's deadline, counted as decided by nobody in time", () => {
    const p = proposal({}, { timeout_ms: 30_000 });
    observe(p);
    expect(tracer.pending).toBe(1);
    vi.advanceTimersByTime(29_999);
    expect(spans()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(tracer.pending).toBe(0);
    expect(decisions).toEqual([['expired', 'timeout', 30]]);
    expect(named('propose write_file').attributes).toMatchObject({ 'mew.decision': 'expired', 'mew.decider.kind': 'timeout', 'mew.proposal.id': p.id });
    expect(named('propose write_file').attributes['mew.decided_by']).toBeUndefined();
    // Approved after it expired: what ran, ran (a span under the same proposal), and the expiry stands.
    observe(envelope('mcp/request', 'lead', { to: ['tools'], correlation_id: [p.id], payload: { method: 'tools/call', params: { name: 'write_file' } } }));
    expect(decisions).toHaveLength(1);
  });

  it("marks the supervisor's timeout rejection as a timeout and a rule's rejection with its rule", () => {
    const timedOut = proposal();
    const byRule = proposal();
    observe(timedOut);
    observe(byRule);
    vi.advanceTimersByTime(90_000);
    observe(envelope('mcp/reject', 'rules', { correlation_id: [timedOut.id], payload: { reason: 'timeout' } }));
    observe(envelope('mcp/reject', 'rules', { correlation_id: [byRule.id], payload: { reason: 'policy', rule: { id: 'r1', version: 3, name: 'no writes' } } }));
    expect(decisions).toEqual([
      ['timeout', 'timeout', 90],
      ['rejected', 'rule', 90],
    ]);
    const roots = spans().filter((s) => s.name === 'propose write_file');
    expect(roots.map((s) => s.attributes['mew.decision'])).toEqual(['timeout', 'rejected']);
    expect(roots[1].attributes).toMatchObject({ 'mew.rule.id': 'r1', 'mew.rule.version': 3, 'mew.decided_by': 'rules', 'mew.reason': 'policy' });
    // Only the supervisor's decisions name a rule: anyone else's claim is a participant's decision.
    const claimed = proposal();
    observe(claimed);
    observe(
      envelope('mcp/request', 'lead', {
        correlation_id: [claimed.id],
        payload: { method: 'tools/call', params: { _meta: { 'mew/rule': { id: 'r9', version: 1, name: 'x' } } } },
      }),
    );
    expect(decisions.at(-1)?.slice(0, 2)).toEqual(['approved', 'participant']);
  });

  it('ends a withdrawn proposal as withdrawn by its proposer, and ignores a withdrawal by anyone else', () => {
    const p = proposal();
    observe(p);
    observe(envelope('mcp/withdraw', 'mallory', { correlation_id: [p.id], payload: { reason: 'no' } }));
    expect(tracer.pending).toBe(1);
    vi.advanceTimersByTime(2_500);
    observe(envelope('mcp/withdraw', 'agent', { correlation_id: [p.id], payload: { reason: 'no_longer_needed' } }));
    expect(tracer.pending).toBe(0);
    expect(decisions).toEqual([['withdrawn', 'proposer', 2.5]]);
    expect(named('decide write_file').attributes).toMatchObject({ 'mew.decision': 'withdrawn', 'mew.decided_by': 'agent', 'mew.reason': 'no_longer_needed' });
  });

  it('makes a reasoning sequence one span with its thoughts and status reports as events, under the request it answers', () => {
    const request = envelope('mcp/request', 'lead', { to: ['agent'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'summarise' } } });
    observe(request);
    // Notifications are events of the request they are about, never spans of their own.
    observe(envelope('mcp/request', 'agent', { correlation_id: [request.id], payload: { method: 'notifications/progress', params: { progress: 1 } } }));
    observe(envelope('mcp/request', 'agent', { payload: { method: 'notifications/tools/list_changed' } }));
    const start = envelope('reasoning/start', 'agent', { correlation_id: [request.id], payload: { message: 'reading' } });
    observe(start);
    observe(envelope('reasoning/thought', 'agent', { context: start.id, payload: { message: 'step one' } }));
    observe(
      envelope('participant/status', 'agent', { payload: { messages_in_context: 3, tokens: 900, total_tokens: 4200, input_tokens: 4000, output_tokens: 200 } }),
    );
    observe(envelope('reasoning/conclusion', 'agent', { context: start.id, payload: { message: 'done' } }));
    observe(envelope('mcp/response', 'agent', { correlation_id: [request.id], payload: { result: { content: [] } } }));

    const reasoning = named('reasoning');
    const call = named('execute_tool summarise');
    expect(reasoning.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(reasoning.spanContext().traceId).toBe(call.spanContext().traceId);
    expect(reasoning.events.map((e) => e.name)).toEqual(['reasoning/thought', 'participant/status', 'reasoning/conclusion']);
    expect(call.events.map((e) => e.name)).toEqual(['notifications/progress']);
    expect(
      spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['execute_tool summarise', 'reasoning']);
    expect(reasoning.events[0].attributes).toEqual({ 'mew.envelope.id': expect.any(String) }); // no content unless asked
    expect(reasoning.attributes).toMatchObject({
      'mew.participant': 'agent',
      'gen_ai.usage.input_tokens': 4000,
      'gen_ai.usage.output_tokens': 200,
      'mew.usage.total_tokens': 4200,
    });
    expect(tracer.usage.get('agent')).toEqual({ total: 4200, context: 900, input: 4000, output: 200 });
  });

  it('links work to the chat that asked for it, and puts a reply to a proposal in its trace', () => {
    observe(envelope('chat', 'auditor', { payload: { text: 'all quiet' } }));
    const chat = envelope('chat', 'lead', { payload: { text: 'please archive the notes' } });
    observe(chat);
    // Chatter no work follows from costs no span.
    expect(spans()).toEqual([]);
    const start = envelope('reasoning/start', 'agent', { correlation_id: [chat.id], payload: {} });
    observe(start);
    const p = proposal({ context: start.id, correlation_id: [chat.id] });
    observe(p);
    observe(envelope('reasoning/conclusion', 'agent', { context: start.id, payload: {} }));
    const reject = envelope('mcp/reject', 'lead', { correlation_id: [p.id], payload: { reason: 'unsafe' } });
    observe(reject);
    observe(envelope('chat', 'lead', { correlation_id: [reject.id], payload: { text: 'not that folder' } }));

    const [asked, explained, ...more] = spans().filter((s) => s.name === 'chat');
    expect(more).toEqual([]);
    expect(asked.attributes['mew.participant']).toBe('lead');
    const reasoning = named('reasoning');
    const root = named('propose write_file');
    // The reasoning and the proposal start traces of their own, linked to what started them.
    expect(reasoning.parentSpanContext).toBeUndefined();
    expect(reasoning.links.map((l) => l.context.spanId)).toEqual([asked.spanContext().spanId]);
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.links.map((l) => l.context.spanId).sort()).toEqual([asked.spanContext().spanId, reasoning.spanContext().spanId].sort());
    // The reject's explanation is in the proposal's trace.
    expect(explained.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(explained.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
  });

  it('resumes the proposals still pending in retained history, from when they were proposed, and leaves settled ones alone', () => {
    const waiting = proposal();
    const settled = proposal();
    const retained = [waiting, settled, envelope('mcp/reject', 'lead', { correlation_id: [settled.id], payload: {} })];
    vi.advanceTimersByTime(60_000);
    tracer.resume(retained);
    expect(tracer.pending).toBe(1);
    observe(envelope('mcp/reject', 'lead', { correlation_id: [waiting.id], payload: { reason: 'unsafe' } }));
    expect(decisions).toEqual([['rejected', 'participant', 60]]);
    expect(spans().filter((s) => s.name === 'propose write_file')).toHaveLength(1);
  });

  it('ends what is open as incomplete when it closes', () => {
    observe(proposal());
    observe(envelope('mcp/request', 'lead', { to: ['tools'], payload: { jsonrpc: '2.0', id: 2, method: 'tools/list' } }));
    observe(envelope('reasoning/start', 'agent', { payload: {} }));
    expect(spans()).toEqual([]);
    tracer.close();
    expect(
      spans()
        .map((s) => [s.name, s.attributes['mew.incomplete']])
        .sort(),
    ).toEqual([
      ['decide write_file', true],
      ['propose write_file', true],
      ['reasoning', true],
      ['tools/list', true],
    ]);
    expect(tracer.pending).toBe(0);
  });
});
