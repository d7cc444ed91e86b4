import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';
import { TELEMETRY_FEATURE, type RunningTelemetry } from '../telemetry/telemetry-feature';
import { telemetrySettings } from '../telemetry/telemetry-settings';
import { OtlpReceiver, type ReceivedSpan } from '../telemetry/testing/otlp-receiver';
import type { MEWParticipant } from './mew-participant';
import { McpError, ProposalRejectedError, RequestCancelledError, RequestTimeoutError } from './sdk-errors';
import { SDK_TRACER_NAME } from './sdk-tracing';
import { nextEvent, participantFactory, rejectionOf } from './testing';

// The SDK's own spans with an OpenTelemetry SDK registered in the process (an in-memory exporter here), against a real
// gateway whose telemetry feature exports to an OTLP receiver: both ends of one trace.

const SPACE = 'traced';
const NOTE = (text: string) => ({ method: 'tools/call', params: { name: 'note_down', arguments: { text } } });
const traceparentOf = (span: { spanContext(): { traceId: string; spanId: string } }) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe('the SDK traces its MCP calls when an OpenTelemetry SDK is registered', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  let gw: TestGateway | undefined;
  let receiver: OtlpReceiver | undefined;
  let participants: ReturnType<typeof participantFactory> | undefined;

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });
  afterEach(async () => {
    participants?.disconnectAll();
    await gw?.close();
    await receiver?.close();
    exporter.reset();
    gw = receiver = participants = undefined;
  });

  async function start() {
    receiver = await OtlpReceiver.start();
    const telemetry = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' });
    const config = spaceConfig(SPACE, {
      lead: [{ kind: '*' }],
      agent: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }],
      direct: [{ kind: 'mcp/request' }],
      tools: [{ kind: 'mcp/response' }],
    });
    gw = await startGatewayWith({ configs: [config], telemetry });
    participants = participantFactory(SPACE, () => gw!.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'note_down', execute: ({ text }) => `Noted: ${String(text)}` });
    await tools.connect();
    const agent = await participants.connect('agent', { autoDiscovery: false });
    const lead = await participants.connect('lead', { autoDiscovery: false });
    return { agent, lead, tools };
  }

  /** The SDK's finished spans named `name`. */
  const sdkSpans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);

  /** The gateway's spans of the trace `traceId`, once `count` of them arrived. */
  async function gatewayTrace(traceId: string, count: number): Promise<ReceivedSpan[]> {
    let spans: ReceivedSpan[] = [];
    await expect
      .poll(async () => {
        await gw!.host(SPACE).feature<RunningTelemetry>(TELEMETRY_FEATURE)!.flush();
        spans = receiver!.spans((s) => s.traceId === traceId);
        return spans.length;
      })
      .toBe(count);
    return spans;
  }

  async function pendingProposal(lead: MEWParticipant): Promise<string> {
    await expect.poll(() => lead.proposals.pending().length).toBe(1);
    return lead.proposals.pending()[0].id;
  }

  it("puts a proposal a human approved in the caller's trace: my span, the gateway's proposal, decision and execution, and the tool's", async () => {
    const { agent, lead, tools } = await start();
    const plan = trace.getTracer('test-app').startSpan('plan');
    const proposalSeen = nextEvent(tools.client, 'mcp/proposal');
    const result = agent.mcpRequest('tools', NOTE('ship it'), 10_000, { traceContext: trace.setSpan(ROOT_CONTEXT, plan) });
    const proposalId = await pendingProposal(lead);
    await lead.proposals.fulfil(proposalId).outcome;
    expect(await result).toMatchObject({ content: [{ text: 'Noted: ship it' }] });
    plan.end();

    // My span: a client span under the caller's, its traceparent carried in params._meta.
    await expect.poll(() => sdkSpans('mcp/proposal note_down').length).toBe(1);
    const [mine] = sdkSpans('mcp/proposal note_down');
    const { traceId, spanId } = mine.spanContext();
    expect(traceId).toBe(plan.spanContext().traceId);
    expect(mine.parentSpanContext?.spanId).toBe(plan.spanContext().spanId);
    expect(mine.kind).toBe(SpanKind.CLIENT);
    expect(mine.instrumentationScope.name).toBe(SDK_TRACER_NAME);
    expect(mine.attributes).toMatchObject({
      'mew.space': SPACE,
      'mcp.session.id': SPACE,
      'mew.kind': 'mcp/proposal',
      'mew.participant': 'agent',
      'mew.target': 'tools',
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'note_down',
      'mew.proposal.id': proposalId,
      'mew.decision': 'approved',
      'mew.decided_by': 'lead',
      'mew.decider.kind': 'participant',
    });
    expect(mine.status.code).toBe(SpanStatusCode.UNSET);
    expect((await proposalSeen).payload).toMatchObject({ params: { name: 'note_down', _meta: { traceparent: traceparentOf(mine) } } });

    // The tool's server span continues the traceparent its request carried (the fulfilment keeps the proposal's params).
    const [served] = sdkSpans('tools/call note_down');
    expect(served.kind).toBe(SpanKind.SERVER);
    expect([served.spanContext().traceId, served.parentSpanContext?.spanId]).toEqual([traceId, spanId]);
    expect(served.attributes).toMatchObject({ 'mew.participant': 'lead', 'mew.target': 'tools', 'gen_ai.tool.name': 'note_down' });

    // The gateway's trace of the chain is the same trace, under my span.
    const spans = await gatewayTrace(traceId, 3);
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    expect(byName['propose note_down'].parentSpanId).toBe(spanId);
    expect(byName['decide note_down'].parentSpanId).toBe(byName['propose note_down'].spanId);
    expect(byName['execute_tool note_down'].parentSpanId).toBe(byName['propose note_down'].spanId);
    expect(byName['decide note_down'].attributes).toMatchObject({ 'mew.decision': 'approved', 'mew.decided_by': 'lead' });
  });

  it('ends the span with a rejection, a withdrawal or my timeout, saying which', async () => {
    const { agent, lead } = await start();
    const rejected = rejectionOf(agent.mcpRequest('tools', NOTE('no'), 10_000));
    await lead.proposals.reject(await pendingProposal(lead), 'unsafe').outcome;
    expect(await rejected).toBeInstanceOf(ProposalRejectedError);

    let withdrawnId = '';
    const withdrawn = rejectionOf(agent.mcpRequest('tools', NOTE('never mind'), 10_000, { onSent: (sent) => (withdrawnId = sent.id) }));
    await pendingProposal(lead);
    agent.withdraw(withdrawnId, 'no_longer_needed');
    expect(await withdrawn).toBeInstanceOf(RequestCancelledError);
    await expect.poll(() => lead.proposals.pending().length).toBe(0);

    expect(await rejectionOf(agent.mcpRequest('tools', NOTE('too slow'), 300))).toBeInstanceOf(RequestTimeoutError);

    await expect.poll(() => sdkSpans('mcp/proposal note_down').length).toBe(3);
    const [first, second, third] = sdkSpans('mcp/proposal note_down');
    expect(first.attributes).toMatchObject({
      'mew.decision': 'rejected',
      'mew.decided_by': 'lead',
      'mew.decider.kind': 'participant',
      'mew.reason': 'unsafe',
      'error.type': 'ProposalRejectedError',
    });
    expect(first.status.code).toBe(SpanStatusCode.ERROR);
    expect(second.attributes).toMatchObject({
      'mew.proposal.id': withdrawnId,
      'mew.decision': 'withdrawn',
      'mew.decider.kind': 'proposer',
      'error.type': 'RequestCancelledError',
    });
    expect(third.attributes).toMatchObject({ 'mew.decision': 'expired', 'mew.decider.kind': 'timeout', 'error.type': 'RequestTimeoutError' });

    // The gateway traced the same three chains, each under my span.
    for (const span of [first, second, third]) {
      const [root] = await gatewayTrace(span.spanContext().traceId, 2).then((spans) => spans.filter((s) => s.name === 'propose note_down'));
      expect(root.parentSpanId).toBe(span.spanContext().spanId);
    }
  });

  it('traces a direct request, its JSON-RPC error, and the tool that served it', async () => {
    await start();
    const direct = await participants!.connect('direct', { autoDiscovery: false });
    expect(await direct.mcpRequest('tools', NOTE('direct'), 5000)).toMatchObject({ content: [{ text: 'Noted: direct' }] });
    const error = await rejectionOf(direct.mcpRequest('tools', { method: 'tools/call', params: { name: 'missing' } }, 5000));
    expect(error).toBeInstanceOf(McpError);

    await expect.poll(() => sdkSpans('tools/call missing').length).toBe(1);
    const [ok] = sdkSpans('mcp/request note_down');
    expect(ok.attributes).toMatchObject({ 'mew.kind': 'mcp/request', 'mew.participant': 'direct', 'jsonrpc.request.id': expect.any(String) });
    expect(ok.attributes).not.toHaveProperty('mew.decision');
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);
    const [failed] = sdkSpans('mcp/request missing');
    expect(failed.attributes['error.type']).toBe('-32602');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    const [served] = sdkSpans('tools/call missing');
    expect(served.parentSpanContext?.spanId).toBe(failed.spanContext().spanId);
    expect([served.attributes['error.type'], served.status.code]).toEqual(['-32602', SpanStatusCode.ERROR]);

    const [execute] = await gatewayTrace(ok.spanContext().traceId, 1);
    expect([execute.name, execute.parentSpanId]).toEqual(['execute_tool note_down', ok.spanContext().spanId]);
  });

  it("continues a traceparent the caller put in the call's _meta itself when no span is active", async () => {
    await start();
    const direct = await participants!.connect('direct', { autoDiscovery: false });
    const carried = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const call = {
      method: 'tools/call',
      params: { name: 'note_down', arguments: { text: 'x' }, _meta: { traceparent: `00-${carried.traceId}-${carried.spanId}-01` } },
    };
    await direct.mcpRequest('tools', call, 5000);
    const [mine] = sdkSpans('mcp/request note_down');
    expect([mine.spanContext().traceId, mine.parentSpanContext?.spanId]).toEqual([carried.traceId, carried.spanId]);
    // The caller's call is not changed; what was sent carries my span.
    expect(call.params._meta.traceparent).toBe(`00-${carried.traceId}-${carried.spanId}-01`);
  });
});
