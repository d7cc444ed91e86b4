import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestGateway, spaceConfig, tokenOf, type TestGateway } from '../gateway/testing';
import type { Envelope } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory, recordEvents } from '../sdk/testing';
import { createWebSocketTransport, type TransportFactory } from '../sdk/transport';
import { McpBridge } from './mcp-bridge';

const SPACE = 'bridged-once';
const FIXTURE = fileURLToPath(new URL('./testing/mgp-fixture-server.mjs', import.meta.url));

describe('MCP bridge: a tools/call delivered twice reaches the MCP server once', () => {
  let gateway: TestGateway;
  let participants: ReturnType<typeof participantFactory>;
  let human: MEWParticipant;
  let bridge: McpBridge | undefined;

  beforeEach(async () => {
    gateway = await startTestGateway(spaceConfig(SPACE, { human: [{ kind: '*' }], files: [{ kind: 'mcp/response' }, { kind: 'participant/status' }] }));
    participants = participantFactory(SPACE, () => gateway.wsUrl(), tokenOf);
    human = await participants.connect('human', { autoDiscovery: false });
  });
  afterEach(async () => {
    await bridge?.stop();
    participants.disconnectAll();
    await gateway.close();
  });

  it('answers the repeat with the stored response instead of forwarding it again', async () => {
    let deliver!: (text: string) => void;
    const sent: string[] = [];
    const transport: TransportFactory = (request, handlers) => {
      deliver = (text) => handlers.onMessage(text);
      const real = createWebSocketTransport(request, handlers);
      return { ...real, send: (data) => (sent.push(String(data)), real.send(data)) };
    };
    bridge = new McpBridge({
      gateway: gateway.wsUrl(),
      space: SPACE,
      token: tokenOf('files'),
      server: { command: process.execPath, args: [FIXTURE] },
      log: () => undefined,
      transport,
    });
    const requests = recordEvents(bridge.participant.client, 'mcp/request');
    const forwarded = vi.spyOn(bridge.upstream, 'request');
    await bridge.connect();

    const call = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'once' } } };
    const result = (await human.mcpRequest('files', call, 10_000)) as { content: { text: string }[] };
    expect(JSON.stringify(result)).toContain('once');
    const responses = () => sent.filter((frame) => (JSON.parse(frame) as { kind: string }).kind === 'mcp/response');
    await expect.poll(() => responses().length).toBe(1);

    deliver(JSON.stringify(requests[0] as Envelope<'mcp/request'>));
    await expect.poll(() => responses().length).toBe(2);
    expect(responses()[1]).toBe(responses()[0]);
    expect(forwarded.mock.calls.filter(([method]) => method === 'tools/call')).toHaveLength(1);
  });
});
