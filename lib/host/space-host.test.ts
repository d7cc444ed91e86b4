import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, startNode, type TestNode, type TestRedis } from '../cluster/testing';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { RunningRules } from '../rules/rules-feature';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';

// One host for a space: a single process and a cluster owner build it with the same function and the same
// features, so a space answers the same routes, has the same participants and runs the same supervisor either way.

/** No `automation` section: the implicit rule supervisor is the host's. */
const CONFIG = spaceConfig('crew', {
  lead: [{ kind: '*' }],
  agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'chat'] }],
  tools: [{ kind: 'mcp/response' }],
});

/** Every feature route of a space, as a request a member may make. */
const ROUTES = ['tools', 'rules', 'budgets', 'processes', 'webhooks', 'push/subscriptions', 'audit', 'nothing-here', '/mcp/crew'];

let redis: TestRedis;
let single: TestGateway;
let node: TestNode;
const participants: ReturnType<typeof participantFactory>[] = [];

beforeAll(async () => {
  redis = await startRedis();
  [single, node] = await Promise.all([startTestGateway(CONFIG), startNode(redis.url, 'n1', [CONFIG])]);
  // A lone node takes its spaces as it listens.
  if (!node.node.ownedHost('crew')) throw new Error('the only node does not own its space');
}, 30_000);
afterAll(async () => {
  for (const factory of participants) factory.disconnectAll();
  await Promise.all([single?.close(), node?.node.close()]);
  await redis?.stop();
});

const servers = () => [
  { name: 'single process', host: single.host('crew'), httpUrl: single.httpUrl, wsUrl: () => single.wsUrl() },
  { name: 'cluster owner', host: node.node.ownedHost('crew')!, httpUrl: node.httpUrl, wsUrl: () => node.wsUrl() },
];

async function statusOf(httpUrl: (path: string) => string, route: string): Promise<number> {
  const method = route === 'push/subscriptions' ? 'POST' : 'GET';
  const path = route.startsWith('/') ? route : `/api/spaces/crew/${route}`;
  const response = await fetch(httpUrl(path), { method, headers: { Authorization: `Bearer ${tokenOf('lead')}` } });
  return response.status;
}

describe('one host for a space', () => {
  it('is the same in a single process and a cluster owner: features, routes, participants and supervisor', async () => {
    const [a, b] = servers();
    const shape = async (server: typeof servers extends () => (infer S)[] ? S : never) => ({
      features: server.host.features,
      routes: await Promise.all(ROUTES.map((route) => statusOf(server.httpUrl, route))),
      participants: [...server.host.context.space.participants.keys()].sort(),
      supervisor: server.host.feature<RunningRules>('rules')?.supervision?.participant,
    });
    const [one, owner] = await Promise.all([shape(a), shape(b)]);
    expect(one).toEqual(owner);
    expect(one).toEqual({
      features: ['tool-pins', 'rules', 'budgets', 'notifications', 'processes', 'mcp-oauth', 'mcp'],
      // push/subscriptions: a POST without a body is refused (400), which a missing route would not be; /mcp: a GET
      // without a session is refused (400) too.
      routes: [200, 200, 200, 200, 200, 400, 200, 404, 400],
      participants: ['agent', 'lead', 'rules', 'tools'],
      supervisor: 'rules',
    });
  });

  it.each([0, 1])('decides the next matching proposal by a rule posted in a space with no automation section (%#: single, cluster)', async (i) => {
    const server = servers()[i];
    const factory = participantFactory('crew', server.wsUrl, tokenOf);
    participants.push(factory);
    const calls: string[] = [];
    const tools = factory.create('tools', { autoDiscovery: false });
    tools.tools.register({
      name: 'note_down',
      security: { risk_level: 'moderate' },
      execute: ({ text }) => (calls.push(String(text)), `Noted: ${String(text)}`),
    });
    await tools.connect();
    const agent: MEWParticipant = await factory.connect('agent', { autoDiscovery: false });
    const rule = { name: `notes ${i}`, decision: 'approve', match: { proposer: 'agent', tool: 'note_down' } };
    const created = await fetch(server.httpUrl('/api/spaces/crew/rules'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(rule),
    });
    expect(created.status).toBe(201);
    const result = await agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: `by rule ${i}` } } }, 10_000);
    expect(result).toMatchObject({ content: [{ text: `Noted: by rule ${i}` }] });
    expect(calls).toEqual([`by rule ${i}`]);
    factory.disconnectAll();
  });

  it('names a space it does not host', () => {
    expect(() => single.host('elsewhere')).toThrow(/no host for space "elsewhere"/);
    expect(node.node.ownedHost('elsewhere')).toBeUndefined();
  });
});
