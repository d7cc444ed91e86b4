import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, tokenOf, type TestClient } from '../gateway/testing';
import { decryptPush, startReceiver, testSubscriber, type ReceivedRequest, type TestReceiver } from '../notify/testing';
import { clusterKeys } from './cluster-keys';
import { joiner, redisClient, startNode, startRedis, type TestNode, type TestRedis } from './testing';

/** `lead` decides anything (an operator), `agent` only proposes, `tools` serves tools. */
const config = spaceConfig('notify', {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'mcp/proposal' }, { kind: 'chat' }],
  tools: [{ kind: 'mcp/response' }],
});
const TOOLS = [{ name: 'read_note', inputSchema: { type: 'object' }, security: { risk_level: 'safe' } }];

let redis: TestRedis;
let receiver: TestReceiver;
const nodes: TestNode[] = [];
const clients: TestClient[] = [];
const join = joiner(clients);

beforeAll(async () => {
  [redis, receiver] = await Promise.all([startRedis(), startReceiver()]);
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(nodes.splice(0).map((n) => n.node.close()));
  const r = redisClient(redis.url);
  await r.flushall();
  r.disconnect();
});
afterAll(async () => {
  await Promise.all([redis.stop(), receiver.close()]);
});

const api = (node: TestNode, path: string, init: { method?: string; token?: string; body?: unknown } = {}) =>
  fetch(node.httpUrl(path), {
    method: init.method ?? 'GET',
    headers: { ...(init.token && { Authorization: `Bearer ${init.token}` }), 'Content-Type': 'application/json' },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
const publicKey = async (node: TestNode, query = '') => ((await (await api(node, `/api/push/public-key${query}`)).json()) as { publicKey: string }).publicKey;
/** The VAPID public key a push was signed with (`Authorization: vapid t=JWT, k=KEY`). */
const signedWith = (push: ReceivedRequest) => /k=([\w-]+)/.exec(String(push.headers.authorization))?.[1];
const hookBody = async (path = '/hook') =>
  JSON.parse((await receiver.next(path, 10_000)).body.toString()) as { event: string; proposal: { id: string }; url: string };
const addWebhook = (node: TestNode, path: string) =>
  api(node, '/api/spaces/notify/webhooks', { method: 'POST', token: tokenOf('lead'), body: { url: receiver.url(path), format: 'json' } });
const proposal = (id: string) => ({
  id,
  kind: 'mcp/proposal',
  to: ['tools'],
  payload: { method: 'tools/call', params: { name: 'read_note', arguments: { path: 'notes/a.md' } } },
});

/** Two nodes, the first owning the space; resolves with the owner and the other. */
async function twoNodes(): Promise<[TestNode, TestNode]> {
  for (const id of ['n0', 'n1']) nodes.push(await startNode(redis.url, id, [config]));
  expect(nodes[0].node.ownedSpaces).toEqual(['notify']);
  return [nodes[0], nodes[1]];
}

/** `from` closes cleanly; resolves once `to` owns the space. */
async function handOver(from: TestNode, to: TestNode): Promise<void> {
  nodes.splice(nodes.indexOf(from), 1);
  await from.node.close();
  await expect.poll(() => to.node.ownedSpaces, { timeout: 5_000 }).toEqual(['notify']);
}

describe('cluster mode: notifications', () => {
  it('serves push, webhooks and action links from the owner through any node, and keeps them, single use included, across handovers', async () => {
    const [owner, other] = await twoNodes();

    // One set of secrets for the cluster: the same VAPID key from either node.
    const key = await publicKey(owner);
    expect(key).toMatch(/^[\w-]{80,}$/);
    expect(await publicKey(other, '?space=notify')).toBe(key);

    // A webhook (by an operator) and the lead's device (by itself), both through the node that does not own the space.
    const hook = await addWebhook(other, '/hook');
    expect(hook.status).toBe(201);
    const hookId = ((await hook.json()) as { webhook: { id: string } }).webhook.id;
    const device = testSubscriber();
    const subscribed = await api(other, '/api/spaces/notify/push/subscriptions', {
      method: 'POST',
      token: tokenOf('lead'),
      body: device.subscription(receiver.url('/push/lead')),
    });
    expect(subscribed.status).toBe(201);

    // Everyone on the node that does not own the space; the tool's risk is declared as the control room discovers it.
    const [lead, agent, tools] = await Promise.all(['lead', 'agent', 'tools'].map((id) => join(other, id)));
    const listId = randomUUID();
    lead.send({ id: listId, kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id: listId, method: 'tools/list' } });
    await tools.next((f) => f.id === listId);
    tools.send({ kind: 'mcp/response', to: ['lead'], correlation_id: [listId], payload: { jsonrpc: '2.0', id: listId, result: { tools: TOOLS } } });
    await lead.next((f) => f.kind === 'mcp/response');
    const propose = (id: string) => agent.send(proposal(id));

    propose('p1');
    expect(await hookBody()).toMatchObject({ event: 'proposal.pending', proposal: { id: 'p1' }, url: owner.httpUrl('/spaces/notify#proposal=p1') });
    const firstPush = await receiver.next('/push/lead', 10_000);
    expect(signedWith(firstPush)).toBe(key);
    const approve = decryptPush(firstPush, device).action_urls!.approve!;

    await handOver(owner, other);
    expect(await publicKey(other)).toBe(key);
    const listed = (await (await api(other, '/api/spaces/notify/webhooks', { token: tokenOf('lead') })).json()) as {
      webhooks: { id: string; last_delivery: unknown }[];
    };
    expect(listed.webhooks).toMatchObject([{ id: hookId, last_delivery: { event: 'proposal.pending', proposal_id: 'p1', attempt: 1, status: 201 } }]);
    const devices = (await (await api(other, '/api/spaces/notify/push/subscriptions', { token: tokenOf('lead') })).json()) as {
      subscriptions: { endpoint: string }[];
    };
    expect(devices.subscriptions.map((s) => s.endpoint)).toEqual([receiver.url('/push/lead')]);

    // The link the previous owner signed works once with the next one, and tells the webhook from there.
    const approved = await api(other, approve, { method: 'POST' });
    expect([approved.status, await approved.json()]).toEqual([200, { ok: true, message: 'Approved read_note for agent' }]);
    expect(await tools.next((f) => f.kind === 'mcp/request' && f.correlation_id?.[0] === 'p1')).toMatchObject({ from: 'lead' });
    expect(await hookBody()).toMatchObject({ event: 'proposal.fulfilled', proposal: { id: 'p1' }, url: other.httpUrl('/spaces/notify#proposal=p1') });
    const replayed = await api(other, approve, { method: 'POST' });
    expect([replayed.status, ((await replayed.json()) as { error: string }).error]).toEqual([409, 'action_token_used']);

    // The next proposal reaches the webhook and the device subscribed under the first owner, signed with the same key.
    propose('p2');
    expect(await hookBody()).toMatchObject({ event: 'proposal.pending', proposal: { id: 'p2' } });
    const secondPush = await receiver.next('/push/lead', 10_000);
    expect(signedWith(secondPush)).toBe(key);
    expect(decryptPush(secondPush, device)).toMatchObject({ tag: 'p2', action_urls: { approve: expect.any(String) } });

    // A third owner still knows the link was used: the refusal is not only that the proposal is decided.
    const third = await startNode(redis.url, 'n2', [config]);
    nodes.push(third);
    await handOver(other, third);
    const again = await api(third, approve, { method: 'POST' });
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([409, 'action_token_used']);
    expect(await publicKey(third)).toBe(key);
  }, 30_000);

  it('sends nothing from an owner whose fence moved on: what it handled then is announced once, by the owner after it', async () => {
    const [, other] = await twoNodes();
    expect((await addWebhook(other, '/stale')).status).toBe(201);
    const [lead, agent] = await Promise.all(['lead', 'agent'].map((id) => join(other, id)));
    const r = redisClient(redis.url);
    await r.incr(clusterKeys.fence('notify')); // as when another node took over while the owner stalled
    r.disconnect();
    agent.send(proposal('p1'));
    // Delivered once an owner under the current fence has written it (the stale one's write is refused).
    await lead.next((f) => f.id === 'p1', 15_000);
    expect(await hookBody('/stale')).toMatchObject({ event: 'proposal.pending', proposal: { id: 'p1' } });
    // The stale owner had decided about its sends before it lost the lease: a duplicate of p1 would come before p2.
    agent.send(proposal('p2'));
    expect(await hookBody('/stale')).toMatchObject({ event: 'proposal.pending', proposal: { id: 'p2' } });
    expect(receiver.received.filter((request) => request.path === '/stale')).toHaveLength(2);
  }, 30_000);
});
