import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startNode, startRedis, type TestNode, type TestRedis } from '../cluster/testing';
import { parseRecordsDocument, SpaceRecords } from './persistence/space-records';
import type { Space } from './space';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type Frame, type TestClient, type TestGateway } from './testing';

// Two-person approval (`approvals: {dangerous: 2}`) whatever the retained history holds: what the gateway counted is
// kept in the space's records, so a restart (SQLite) or a cluster takeover (Redis) that no longer retains a proposal
// still knows it, its approvals and whether it ran. The history here keeps HISTORY_SIZE envelopes, and a flood of
// chats pushes every proposal out of it before each restart.

const SPACE = 'quorum-kept';
const HISTORY_SIZE = 10;
const FLOOD = 3 * HISTORY_SIZE;

const config = (approvals: unknown = { dangerous: 2 }) =>
  spaceConfig(
    SPACE,
    {
      alice: [{ kind: '*' }],
      bob: [{ kind: '*' }],
      carol: [{ kind: '*' }],
      agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'chat'] }],
      tools: [{ kind: ['mcp/response', 'chat'] }],
    },
    { approvals, limits: { history_size: HISTORY_SIZE, rate_per_second: 10_000, rate_burst: 10_000 } },
  );

/** Where the space runs now: a gateway, or the node that owns it. */
interface Host {
  wsUrl(query?: string): string;
  space(): Space;
}

/** The space's participants on raw sockets; `tools` counts every `tools/call` that reaches it (never answered). */
interface Clients {
  alice: TestClient;
  bob: TestClient;
  carol: TestClient;
  agent: TestClient;
  tools: TestClient;
}

const clients: TestClient[] = [];
/** Every `tools/call` request that reached the tools participant, whichever connection and run of the gateway. */
const calls: Frame[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  calls.length = 0;
  vi.restoreAllMocks();
});

async function joinAll(host: Host): Promise<Clients> {
  const [alice, bob, carol, agent, tools] = await Promise.all(
    ['alice', 'bob', 'carol', 'agent', 'tools'].map((id) => joinAs(host, tokenOf(id), `space=${SPACE}`)),
  );
  clients.push(alice, bob, carol, agent, tools);
  tools.ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    if (frame.kind === 'mcp/request' && frame.payload?.method === 'tools/call') calls.push(frame);
  });
  return { alice, bob, carol, agent, tools };
}

function closeAll(): void {
  for (const client of clients.splice(0)) client.close();
}

let ids = 0;
const next = (prefix: string) => `${prefix}-${++ids}`;

async function propose({ agent, bob }: Clients, tool = 'write_file'): Promise<string> {
  const id = next('proposal');
  agent.send({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: tool, arguments: { path: 'a.txt' } } } });
  await bob.next((f) => f.id === id);
  return id;
}

/** Sends the fulfilling request (an approval); returns its envelope id. */
function approve(client: TestClient, proposalId: string, tool = 'write_file'): string {
  const id = next('approval');
  client.send({
    id,
    kind: 'mcp/request',
    to: ['tools'],
    correlation_id: [proposalId],
    payload: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { path: 'a.txt' } } },
  });
  return id;
}

/** The `system/approval` answering the approval `requestId`, as `client` received it. */
const approvalOf = async (client: TestClient, requestId: string) =>
  (await client.next((f) => f.kind === 'system/approval' && f.payload.request_id === requestId, 10_000)).payload;

/** Chats until none of `proposals` (nor anything about them) is retained any more. */
async function flood({ alice, bob }: Clients, host: Host, proposals: string[]): Promise<void> {
  for (let i = 0; i < FLOOD; i++) alice.send({ kind: 'chat', payload: { text: `flood ${i}` } });
  await bob.next((f) => f.kind === 'chat' && f.payload.text === `flood ${FLOOD - 1}`, 10_000);
  const retained = retainedIds(host);
  for (const id of proposals) expect(retained).not.toContain(id);
}

const retainedIds = (host: Host) =>
  host
    .space()
    .history.toArray()
    .map((m) => m.envelope?.id);

/** Everything sent before now reached everyone: a chat from carol that bob and tools see. */
async function settle({ carol, bob, tools }: Clients): Promise<void> {
  const id = next('marker');
  carol.send({ id, kind: 'chat', payload: { text: 'marker' } });
  for (const client of [bob, tools]) await client.next((f) => f.id === id, 10_000);
}

/**
 * The scenario of both tests: alice approves P, nobody approves Q; every proposal falls out of the retained history;
 * the space moves (`restart`). Then alice again counts once (P held), bob alone does not carry out Q, bob completes P
 * (it runs exactly once) and carol's late approval is refused.
 */
async function approvalsSurvive(first: Host, restart: () => Promise<Host>): Promise<{ host: Host; p: string; fx: Clients }> {
  let fx = await joinAll(first);
  const p = await propose(fx);
  const q = await propose(fx);
  const a1 = approve(fx.alice, p);
  expect(await approvalOf(fx.bob, a1)).toMatchObject({ required: 2, complete: false, approvals: [{ by: 'alice', envelope_id: a1 }] });
  await flood(fx, first, [p, q]);
  closeAll();

  const host = await restart();
  expect(retainedIds(host)).not.toContain(p);
  fx = await joinAll(host);

  const again = approve(fx.alice, p);
  expect(await approvalOf(fx.bob, again)).toMatchObject({ required: 2, complete: false, approvals: [{ by: 'alice', envelope_id: a1 }] });
  const alone = approve(fx.bob, q);
  expect(await approvalOf(fx.carol, alone)).toMatchObject({ proposal_id: q, required: 2, complete: false, approvals: [{ by: 'bob' }] });
  await settle(fx);
  expect(calls).toEqual([]);

  const b1 = approve(fx.bob, p);
  expect(await approvalOf(fx.carol, b1)).toMatchObject({ required: 2, complete: true, approvals: [{ by: 'alice' }, { by: 'bob' }] });
  await fx.tools.next((f) => f.id === b1, 10_000);
  const late = approve(fx.carol, p);
  expect(await fx.carol.next((f) => f.kind === 'system/error', 10_000)).toMatchObject({
    correlation_id: [late],
    payload: { error: 'proposal_not_pending', proposal_id: p },
  });
  await settle(fx);
  expect(calls.map((c) => c.id)).toEqual([b1]);
  return { host, p, fx };
}

describe('two-person approval across a restart that no longer retains the proposal', () => {
  const open: TestGateway[] = [];
  afterEach(async () => {
    closeAll();
    for (const gw of open.splice(0)) await gw.close();
  });

  async function start(dataDir: string, port?: number, approvals?: unknown): Promise<Host & { gw: TestGateway }> {
    const gw = await startGatewayWith({ configs: [config(approvals)], dataDir, port });
    open.push(gw);
    return { gw, wsUrl: gw.wsUrl, space: () => gw.gateway.spaces.get(SPACE)! };
  }

  async function restart(host: { gw: TestGateway }, dataDir: string) {
    const port = host.gw.port;
    await open.splice(open.indexOf(host.gw), 1)[0].close();
    return start(dataDir, port);
  }

  const newDataDir = () => mkdtempSync(join(tmpdir(), 'mew-quorum-kept-'));

  it('counts alice once, runs the call exactly once with bob, refuses a late approval, and still does after another restart', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    const { host, p } = await approvalsSurvive(first, () => restart(first, dataDir));

    // Completed is kept too: a late approval after yet another restart does not run it again.
    const fx = await joinAll(host);
    await flood(fx, host, [p]);
    closeAll();
    const third = await restart(host as typeof first, dataDir);
    const after = await joinAll(third);
    const late = approve(after.carol, p);
    expect(await after.carol.next((f) => f.kind === 'system/error', 10_000)).toMatchObject({
      correlation_id: [late],
      payload: { error: 'proposal_not_pending', proposal_id: p },
    });
    await settle(after);
    expect(calls).toHaveLength(1);
  }, 30_000);

  it('drops the approvals of a rejected proposal, and a later approval starts a new count, after a restart too', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    let fx = await joinAll(first);
    const r = await propose(fx);
    const a1 = approve(fx.alice, r);
    await approvalOf(fx.bob, a1);
    fx.bob.send({ kind: 'mcp/reject', to: ['agent'], correlation_id: [r], payload: { reason: 'unsafe' } });
    await fx.agent.next((f) => f.kind === 'mcp/reject', 10_000);
    await flood(fx, first, [r]);
    closeAll();

    const second = await restart(first, dataDir);
    fx = await joinAll(second);
    const c1 = approve(fx.carol, r);
    expect(await approvalOf(fx.bob, c1)).toMatchObject({ proposal_id: r, required: 2, complete: false, approvals: [{ by: 'carol' }] });
    const a2 = approve(fx.alice, r);
    expect(await approvalOf(fx.bob, a2)).toMatchObject({ complete: true, approvals: [{ by: 'carol' }, { by: 'alice' }] });
    await settle(fx);
    expect(calls.map((c) => c.id)).toEqual([a2]);
  }, 30_000);

  it('writes nothing for ordinary requests, nor at all without a policy that asks for several approvals', async () => {
    const written = vi.spyOn(SpaceRecords.prototype, 'setQuorums');
    const dataDir = newDataDir();
    const single = await start(dataDir, undefined, { dangerous: 1 });
    let fx = await joinAll(single);
    approve(fx.bob, await propose(fx));
    await settle(fx);
    expect(calls).toHaveLength(1);
    expect(written).not.toHaveBeenCalled();
    closeAll();
    await open.pop()!.close();

    const several = await start(newDataDir());
    fx = await joinAll(several);
    // Requests that fulfil no proposal, a listing, chats: nothing to keep.
    for (const client of [fx.alice, fx.bob]) {
      const id = next('direct');
      client.send({ id, kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write_file' } } });
      client.send({ kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    }
    await settle(fx);
    expect(calls).toHaveLength(3);
    expect(written).not.toHaveBeenCalled();
    // A proposal that needs two, then its approval: one write each.
    const p = await propose(fx);
    expect(written).toHaveBeenCalledTimes(1);
    await approvalOf(fx.bob, approve(fx.alice, p));
    expect(written).toHaveBeenCalledTimes(2);
    const [kept, ...others] = several.space().state.quorums;
    expect(others).toEqual([]);
    expect(kept).toMatchObject({ proposal: { id: p, proposer: 'agent', tool: 'write_file', target: 'tools' }, required: 2 });
    expect(Object.values(kept.calls)).toMatchObject([[{ by: 'alice' }]]);
  }, 30_000);

  it('keeps the newest proposals that need several approvals in the records, up to its bound', async () => {
    const first = await start(newDataDir());
    const fx = await joinAll(first);
    const proposals = Array.from({ length: 1_005 }, () => next('many'));
    for (const id of proposals) {
      fx.agent.send({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: 'write_file' } } });
    }
    await fx.bob.next((f) => f.id === proposals.at(-1), 20_000);
    const kept = first.space().state.quorums.map((q) => q.proposal.id);
    expect(kept).toEqual(proposals.slice(-1_000));
  }, 30_000);

  it('loads a records document written before quorums were kept', () => {
    const old = { state: { version: 1, grants: [], revocations: [], invited: [], kicked: [] }, tokens: { participants: {} } };
    expect(parseRecordsDocument('old', JSON.stringify(old)).state.quorums).toEqual([]);
  });
});

describe('two-person approval across a cluster takeover that no longer retains the proposal', () => {
  let redis: TestRedis | undefined;
  const nodes: TestNode[] = [];
  afterAll(async () => {
    closeAll();
    await Promise.all(nodes.splice(0).map((n) => n.node.close()));
    await redis?.stop();
  });

  const hostOf = (node: TestNode): Host => ({ wsUrl: node.wsUrl, space: () => node.node.ownedSpace(SPACE)! });

  it('counts alice once with the next owner, runs the call exactly once with bob and refuses a late approval', async () => {
    redis = await startRedis();
    for (const id of ['n0', 'n1']) nodes.push(await startNode(redis.url, id, [config()]));
    const [owner, next] = nodes;
    expect(owner.node.ownedSpaces).toEqual([SPACE]);
    await approvalsSurvive(hostOf(owner), async () => {
      nodes.splice(nodes.indexOf(owner), 1);
      await owner.node.close(); // a clean handover: the next owner loads the space from Redis alone
      await expect.poll(() => next.node.ownedSpaces, { timeout: 10_000 }).toEqual([SPACE]);
      return hostOf(next);
    });
  }, 60_000);
});
