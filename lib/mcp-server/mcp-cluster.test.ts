import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startRedis, type TestNode, type TestRedis } from '../cluster/testing';
import { spaceConfig, tokenOf } from '../gateway/testing';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';

// The MCP endpoint is a feature of the space's host, so in a cluster the space's owner serves it and any node
// forwards to it: an MCP client may reach the space through any node.

const CONFIG = spaceConfig('crew', {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'mcp/request', payload: { method: 'tools/list' } }, { kind: 'mcp/proposal', payload: { method: 'tools/call' } }, { kind: 'mcp/withdraw' }],
  tools: [{ kind: 'mcp/response' }],
});

let redis: TestRedis;
let nodes: TestNode[];
let participants: ReturnType<typeof participantFactory>;

beforeAll(async () => {
  redis = await startRedis();
  nodes = [await startNode(redis.url, 'n0', [CONFIG]), await startNode(redis.url, 'n1', [CONFIG])];
}, 30_000);
afterAll(async () => {
  participants?.disconnectAll();
  await Promise.all(nodes.map((n) => n.node.close()));
  await redis?.stop();
});

describe('the MCP endpoint in a cluster', () => {
  it('serves a client through a node that does not own the space: list, and a proposed call approved on the owner', async () => {
    const owner = nodes.find((n) => n.node.ownedHost('crew'))!;
    const other = nodes.find((n) => n !== owner)!;
    participants = participantFactory('crew', () => owner.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'deploy', security: { risk_level: 'dangerous' }, execute: ({ to }) => `deployed to ${String(to)}` });
    await tools.connect();
    const lead: MEWParticipant = await participants.connect('lead', { autoDiscovery: false });

    const transport = new StreamableHTTPClientTransport(new URL(other.httpUrl('/mcp/crew')), {
      requestInit: { headers: { Authorization: `Bearer ${tokenOf('agent')}` } },
    });
    const client = new Client({ name: 'cluster-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['tools__deploy']);
      const call = client.callTool({ name: 'tools__deploy', arguments: { to: 'staging' } });
      await expect.poll(() => lead.proposals.pending().length, { timeout: 5_000 }).toBe(1);
      await lead.proposals.fulfil(lead.proposals.pending()[0].id).outcome;
      expect(await call).toEqual({ content: [{ type: 'text', text: 'deployed to staging' }] });
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
