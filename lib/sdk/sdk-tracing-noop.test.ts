import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { otel, otelPending } from './sdk-tracing';
import { nextEvent, participantFactory } from './testing';

// Without a tracer provider registered (the browser, the gateway's own participants, an uninstrumented agent), the SDK
// traces nothing and loads no OpenTelemetry code: nothing is added to what it sends.

const SPACE = 'untraced';
const NOTE = { method: 'tools/call', params: { name: 'note_down', arguments: { text: 'x' } } };

describe('the SDK with no OpenTelemetry SDK registered', () => {
  let gw: TestGateway;
  let direct: MEWParticipant;
  let tools: MEWParticipant;
  const participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig(SPACE, { direct: [{ kind: 'mcp/request' }], tools: [{ kind: 'mcp/response' }] }));
    tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'note_down', execute: ({ text }) => `Noted: ${String(text)}` });
    await tools.connect();
    direct = await participants.connect('direct', { autoDiscovery: false });
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('records nothing, loads nothing and sends the call exactly as given', async () => {
    const seen = nextEvent(tools.client, 'mcp/request');
    expect(await direct.mcpRequest('tools', NOTE, 5000)).toMatchObject({ content: [{ text: 'Noted: x' }] });
    expect((await seen).payload.params).toEqual(NOTE.params);
    expect([otel(), otelPending()]).toEqual([undefined, false]);
  });
});
