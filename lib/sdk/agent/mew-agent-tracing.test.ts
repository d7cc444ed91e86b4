import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TELEMETRY_FEATURE, type RunningTelemetry } from '../../telemetry/telemetry-feature';
import { telemetrySettings } from '../../telemetry/telemetry-settings';
import { OtlpReceiver, type ReceivedSpan } from '../../telemetry/testing/otlp-receiver';
import { SPACE, startAgentFixture, type AgentFixture } from './testing/agent-fixture';

// MEWAgent with an OpenTelemetry SDK registered in its process: a turn, its model calls and its tool calls are one
// trace, which the gateway's trace of the proposal (its approval by a human, its execution) continues.

describe('MEWAgent tracing', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  let fx: AgentFixture | undefined;
  let receiver: OtlpReceiver | undefined;

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });
  afterEach(async () => {
    await fx?.close();
    await receiver?.close();
    exporter.reset();
    fx = receiver = undefined;
  });

  async function start(): Promise<AgentFixture> {
    receiver = await OtlpReceiver.start();
    const telemetry = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' });
    fx = await startAgentFixture({ telemetry });
    return fx;
  }

  const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
  const one = (name: string): ReadableSpan => {
    const found = spans(name);
    expect(found, name).toHaveLength(1);
    return found[0];
  };
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const idOf = (span: ReadableSpan) => span.spanContext().spanId;

  it('traces a turn: its model calls with their usage, and a proposed tool call a human approved, into the gateway’s trace', async () => {
    const { model, human } = await start();
    await fx!.startAgent();
    human.on('proposal', (p) => {
      if (p.state === 'pending') void human.proposals.fulfil(p.id).outcome;
    });
    model.reply(
      { toolCalls: [{ name: 'files__write_file', arguments: { path: 'b.txt', text: 'hi' } }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: 'Wrote b.txt.', usage: { prompt_tokens: 150, completion_tokens: 12 } },
    );
    expect((await fx!.ask('Write hi into b.txt').answer).payload.text).toBe('Wrote b.txt.');

    await expect.poll(() => spans('invoke_agent agent').length).toBe(1);
    const turn = one('invoke_agent agent');
    const traceId = turn.spanContext().traceId;
    expect(parentOf(turn)).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'agent',
      'gen_ai.request.model': 'scripted',
      'mew.space': SPACE,
      'mew.turn.outcome': 'answered',
    });

    const chats = spans('chat scripted');
    expect(chats.map((s) => [parentOf(s), s.kind, s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [idOf(turn), SpanKind.CLIENT, 100, 10],
      [idOf(turn), SpanKind.CLIENT, 150, 12],
    ]);
    expect(chats[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted',
      'gen_ai.provider.name': 'openai',
      'server.address': '127.0.0.1',
    });

    const tool = one('execute_tool write_file');
    expect(parentOf(tool)).toBe(idOf(turn));
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'write_file', 'mew.target': 'files' });
    expect(tool.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);

    const proposal = one('mcp/proposal write_file');
    expect(parentOf(proposal)).toBe(idOf(tool));
    expect(proposal.attributes).toMatchObject({ 'mew.decision': 'approved', 'mew.decided_by': 'human', 'mew.participant': 'agent' });
    const served = one('tools/call write_file');
    expect(parentOf(served)).toBe(idOf(proposal));
    for (const span of [...chats, tool, proposal, served]) expect(span.spanContext().traceId).toBe(traceId);

    // The gateway's proposal, decision and execution are in the agent's trace, under its proposal span.
    let gateway: ReceivedSpan[] = [];
    await expect
      .poll(async () => {
        await fx!.gw.host(SPACE).feature<RunningTelemetry>(TELEMETRY_FEATURE)!.flush();
        gateway = receiver!.spans((s) => s.traceId === traceId);
        return gateway.map((s) => s.name).sort();
      })
      .toEqual(['decide write_file', 'execute_tool write_file', 'propose write_file']);
    const root = gateway.find((s) => s.name === 'propose write_file')!;
    expect(root.parentSpanId).toBe(idOf(proposal));
    expect(gateway.find((s) => s.name === 'decide write_file')!.attributes).toMatchObject({ 'mew.decision': 'approved', 'mew.decided_by': 'human' });
  });

  it('marks a rejected tool call and a failed model call as errors, and the turn as failed', async () => {
    const { model, human } = await start();
    await fx!.startAgent();
    human.on('proposal', (p) => {
      if (p.state === 'pending') human.proposals.reject(p.id, 'unsafe');
    });
    // The second model call finds no scripted reply: the server answers 400.
    model.reply({ toolCalls: [{ name: 'files__write_file', arguments: { path: 'c.txt', text: 'no' } }] });
    expect((await fx!.ask('Write c.txt').answer).payload.text).toMatch(/^I failed/);

    await expect.poll(() => spans('invoke_agent agent').length).toBe(1);
    const turn = one('invoke_agent agent');
    expect([turn.attributes['mew.turn.outcome'], turn.status.code]).toEqual(['failed', SpanStatusCode.ERROR]);
    const tool = one('execute_tool write_file');
    expect([tool.attributes['error.type'], tool.status.code]).toEqual(['ProposalRejectedError', SpanStatusCode.ERROR]);
    expect(one('mcp/proposal write_file').attributes).toMatchObject({ 'mew.decision': 'rejected', 'mew.decided_by': 'human', 'mew.reason': 'unsafe' });
    const [, failed] = spans('chat scripted');
    expect([failed.attributes['error.type'], failed.status.code]).toEqual(['400', SpanStatusCode.ERROR]);
  });
});
