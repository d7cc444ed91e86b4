import { afterEach, describe, expect, it } from 'vitest';
import { spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';
import { TELEMETRY_FEATURE, type RunningTelemetry } from './telemetry-feature';
import { telemetrySettings, type OtlpProtocol } from './telemetry-settings';
import { OtlpReceiver, type ReceivedSpan } from './testing/otlp-receiver';

// The telemetry feature against a real gateway and an OTLP receiver in this process: what a collector would get.

const SPACE = 'ops';
const AGENT = [{ kind: ['mcp/proposal', 'mcp/withdraw', 'chat', 'reasoning/start', 'reasoning/thought', 'reasoning/conclusion', 'participant/status'] }];
const TOOLS = [{ kind: ['mcp/response', 'participant/status'] }];
const NOTE_RULE = { name: 'agent notes', decision: 'approve', match: { proposer: 'agent', tool: 'note_down' } };
const NOTE = (text: string, extra: Record<string, unknown> = {}) => ({ method: 'tools/call', params: { name: 'note_down', arguments: { text }, ...extra } });

describe('OpenTelemetry of a space', () => {
  let gw: TestGateway | undefined;
  let receiver: OtlpReceiver | undefined;
  let participants: ReturnType<typeof participantFactory> | undefined;
  afterEach(async () => {
    participants?.disconnectAll();
    await gw?.close();
    await receiver?.close();
    gw = receiver = participants = undefined;
  });

  async function start(protocol: OtlpProtocol, env: Record<string, string> = {}) {
    receiver = await OtlpReceiver.start();
    const telemetry = telemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'mew-test',
      ...env,
    });
    gw = await startGatewayWith({ configs: [spaceConfig(SPACE, { lead: [{ kind: '*' }], agent: AGENT, tools: TOOLS })], telemetry });
    participants = participantFactory(SPACE, () => gw!.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'note_down', security: { risk_level: 'moderate' }, execute: ({ text }) => `Noted: ${String(text)}` });
    await tools.connect();
    const agent = await participants.connect('agent', { autoDiscovery: false });
    const lead = await participants.connect('lead', { autoDiscovery: false });
    return { agent, lead, tools };
  }

  const flush = () => gw!.host(SPACE).feature<RunningTelemetry>(TELEMETRY_FEATURE)!.flush();

  /** The spans of the trace whose root is named `root`, once `count` of them arrived. */
  async function traceOf(root: string, count: number): Promise<ReceivedSpan[]> {
    let spans: ReceivedSpan[] = [];
    await expect
      .poll(async () => {
        await flush();
        const first = receiver!.spans((s) => s.name === root).at(-1);
        spans = first ? receiver!.spans((s) => s.traceId === first.traceId) : [];
        return spans.length;
      })
      .toBe(count);
    return spans;
  }

  async function pendingProposal(lead: MEWParticipant): Promise<string> {
    await expect.poll(() => lead.proposals.pending().length).toBe(1);
    return lead.proposals.pending()[0].id;
  }

  it('sends a proposal a person approved and a tool answered as one trace: proposal, decision, execution (http/protobuf)', async () => {
    const { agent, lead } = await start('http/protobuf');
    const result = agent.mcpRequest('tools', NOTE('ship it'), 10_000);
    const proposalId = await pendingProposal(lead);
    await lead.proposals.fulfil(proposalId).outcome;
    expect(await result).toMatchObject({ content: [{ text: 'Noted: ship it' }] });

    const spans = await traceOf('propose note_down', 3);
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    const root = byName['propose note_down'];
    const decide = byName['decide note_down'];
    const execute = byName['execute_tool note_down'];
    expect(decide.parentSpanId).toBe(root.spanId);
    expect(execute.parentSpanId).toBe(root.spanId);
    expect(root.resource['service.name']).toBe('mew-test');
    expect(root.attributes).toMatchObject({
      'mew.space': SPACE,
      'mew.participant': 'agent',
      'mew.proposal.id': proposalId,
      'mew.target': 'tools',
      'mcp.method.name': 'tools/call',
      'mcp.session.id': SPACE,
      'gen_ai.tool.name': 'note_down',
      'mew.decision': 'approved',
      'mew.decided_by': 'lead',
      'mew.decider.kind': 'participant',
    });
    expect(decide.attributes).toMatchObject({ 'mew.decision': 'approved', 'mew.decided_by': 'lead', 'mew.participant': 'lead' });
    expect(execute.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'note_down',
      'mcp.method.name': 'tools/call',
      'mew.proposal.id': proposalId,
      'mew.participant': 'lead',
      'mew.responder': 'tools',
    });
    expect(execute.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    expect(execute.status.code).toBe(0);
    // The decision waited from the proposal to the approval; the chain ends with the tool's answer.
    expect(decide.startNs).toBe(root.startNs);
    expect(decide.endNs).toBeLessThanOrEqual(execute.startNs);
    expect(root.endNs).toBeGreaterThanOrEqual(execute.endNs);
    // Arguments and results are not recorded unless asked for.
    expect(spans.flatMap((s) => Object.keys(s.attributes))).not.toContain('gen_ai.tool.call.arguments');
    expect(new Set(receiver!.requests.map((r) => r.contentType))).toEqual(new Set(['application/x-protobuf']));
  });

  it("names the rule and its version on a rule's decision", async () => {
    const { agent } = await start('http/json');
    const created = await fetch(gw!.httpUrl(`/api/spaces/${SPACE}/rules`), {
      method: 'POST',
      body: JSON.stringify(NOTE_RULE),
      headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const { rule } = (await created.json()) as { rule: { id: string; version: number } };
    expect(await agent.mcpRequest('tools', NOTE('by rule'), 10_000)).toMatchObject({ content: [{ text: 'Noted: by rule' }] });

    const spans = await traceOf('propose note_down', 3);
    const decide = spans.find((s) => s.name === 'decide note_down')!;
    const decision = { 'mew.decision': 'approved', 'mew.decider.kind': 'rule', 'mew.decided_by': 'rules', 'mew.rule.id': rule.id, 'mew.rule.version': 1 };
    expect(decide.attributes).toMatchObject({ ...decision, 'mew.rule.name': 'agent notes' });
    expect(spans.find((s) => s.parentSpanId === undefined)!.attributes).toMatchObject(decision);
    expect(new Set(receiver!.requests.map((r) => r.contentType))).toEqual(new Set(['application/json']));
  });

  it('reports pending proposals, decisions by outcome and decider, the time to decide, routed and refused envelopes', async () => {
    const { agent, lead } = await start('http/protobuf');
    const first = agent.mcpRequest('tools', NOTE('one'), 10_000).catch((error: Error) => error);
    await pendingProposal(lead);
    const second = agent.mcpRequest('tools', NOTE('two'), 10_000).catch((error: Error) => error);
    await expect.poll(() => lead.proposals.pending().length).toBe(2);
    const [one, two] = lead.proposals.pending();
    // Refused: the agent may only propose.
    agent.client.send({ kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id: 99, method: 'tools/list' } });

    await expect
      .poll(async () => {
        await flush();
        return [receiver!.latest('mew.proposals.pending', { 'mew.space': SPACE })[0]?.value, receiver!.latest('mew.envelopes.refused').length];
      })
      .toEqual([2, 1]);
    expect(receiver!.latest('mew.envelopes.refused')).toEqual([
      expect.objectContaining({ type: 'sum', value: 1, attributes: { 'mew.space': SPACE, 'error.type': 'capability_violation', 'mew.kind': 'mcp/request' } }),
    ]);
    expect(receiver!.latest('mew.participants.online', { 'mew.space': SPACE })[0]?.value).toBe(3);
    expect(receiver!.latest('mew.connections', { 'mew.space': SPACE })[0]?.value).toBe(3);

    await lead.proposals.reject(one.id, 'unsafe').outcome;
    await lead.proposals.fulfil(two.id).outcome;
    expect(await second).toMatchObject({ content: [{ text: 'Noted: two' }] });
    expect(await first).toBeInstanceOf(Error);

    await expect
      .poll(async () => {
        await flush();
        return receiver!.latest('mew.proposals.pending', { 'mew.space': SPACE })[0]?.value;
      })
      .toBe(0);
    const decisions = receiver!.latest('mew.proposal.decisions', { 'mew.space': SPACE });
    expect(decisions.map((p) => [p.attributes['mew.decision'], p.attributes['mew.decider.kind'], p.value]).sort()).toEqual([
      ['approved', 'participant', 1],
      ['rejected', 'participant', 1],
    ]);
    const waits = receiver!.latest('mew.proposal.decision.duration', { 'mew.space': SPACE });
    expect(waits.map((p) => p.count)).toEqual([1, 1]);
    expect(waits.every((p) => p.unit === 's' && p.sum! > 0)).toBe(true);
    const routed = Object.fromEntries(receiver!.latest('mew.envelopes.routed', { 'mew.space': SPACE }).map((p) => [p.attributes['mew.kind'], p.value]));
    expect(routed).toMatchObject({ 'mcp/proposal': 2, 'mcp/reject': 1, 'mcp/response': 1 });
    expect(receiver!.latest('mew.deliveries', { 'mew.space': SPACE })[0]?.value).toBeGreaterThan(routed['mcp/proposal']!);

    // The rejection's trace: no execution, the decision on the root.
    const rejected = receiver!.spans((s) => s.attributes['mew.proposal.id'] === one.id && s.parentSpanId === undefined);
    expect(rejected[0]?.attributes).toMatchObject({ 'mew.decision': 'rejected', 'mew.decided_by': 'lead', 'mew.reason': 'unsafe' });
  });

  it("continues a participant's traceparent, in params._meta or in the envelope's context", async () => {
    const { agent, lead } = await start('http/json');
    const carried = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const result = agent.mcpRequest('tools', NOTE('traced', { _meta: { traceparent: `00-${carried.traceId}-${carried.spanId}-01` } }), 10_000);
    await lead.proposals.fulfil(await pendingProposal(lead)).outcome;
    await result;
    const spans = await traceOf('propose note_down', 3);
    const root = spans.find((s) => s.name === 'propose note_down')!;
    expect([root.traceId, root.parentSpanId]).toEqual([carried.traceId, carried.spanId]);

    // A direct call whose envelope context is a traceparent.
    const direct = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    const request = lead.send({
      kind: 'mcp/request',
      to: ['tools'],
      context: `00-${direct.traceId}-${direct.spanId}-01`,
      payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'note_down', arguments: { text: 'direct' } } },
    });
    await expect
      .poll(async () => {
        await flush();
        return receiver!.spans((s) => s.traceId === direct.traceId).map((s) => [s.name, s.parentSpanId, s.attributes['gen_ai.tool.call.id']]);
      })
      .toEqual([['execute_tool note_down', direct.spanId, request.id]]);
  });

  it('records arguments and results, secrets masked (lib/secrets), only when MEW_OTEL_CAPTURE_CONTENT=true', async () => {
    const { agent, lead } = await start('http/protobuf', { MEW_OTEL_CAPTURE_CONTENT: 'true' });
    const result = agent.mcpRequest(
      'tools',
      { method: 'tools/call', params: { name: 'note_down', arguments: { text: 'deploy with sk-abcdefghijklmnopqrstuvwx', password: 'hunter2' } } },
      10_000,
    );
    await lead.proposals.fulfil(await pendingProposal(lead)).outcome;
    await result;
    const spans = await traceOf('propose note_down', 3);
    const execute = spans.find((s) => s.name === 'execute_tool note_down')!;
    expect(JSON.parse(String(execute.attributes['gen_ai.tool.call.arguments']))).toEqual({ text: 'deploy with sk-…uvwx', password: '…' });
    expect(String(execute.attributes['gen_ai.tool.call.result'])).toContain('Noted: deploy with sk-…uvwx');
    expect(JSON.stringify(spans, (_key, value) => (typeof value === 'bigint' ? String(value) : value))).not.toMatch(/hunter2|sk-abcdef/);
  });
});
