import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, type TestClient } from '../gateway/testing';
import { chat, joiner, ownerVia, startNodeProcesses, startRedis, type NodeProcess, type TestRedis } from './testing';

/**
 * How long a takeover may take before the test gives up: a liveness bound, far above the lease's TTL (3 s). How long
 * it does take is printed (and measured in docs/cluster.md); tests time nothing.
 */
const TAKEOVER_LIMIT_MS = 15_000;
const READ_FILE = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
const config = spaceConfig(
  's1',
  { boss: [{ kind: '*' }], alice: [{ kind: 'chat' }], bob: [{ kind: 'chat' }], carol: [{ kind: 'chat' }], dave: [{ kind: 'chat' }] },
  { limits: { rate_per_second: 10_000, rate_burst: 10_000 } },
);

let redis: TestRedis;
let nodes: NodeProcess[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
  nodes = await startNodeProcesses(redis.url, ['n0', 'n1', 'n2', 'n3'], [config]);
}, 60_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => n.stop()));
  await redis.stop();
});

const ownerOf = (node: NodeProcess) => ownerVia(node, 's1');

const join = joiner(clients);

describe('cluster failover (real processes, kill -9)', () => {
  it('moves the space to another node, losing nothing accepted, keeping its state and its survivors connected', async () => {
    expect(await ownerOf(nodes[1])).toBe('n0');
    const [owner, first, second] = nodes;
    await join(owner, 'alice'); // a participant on the owner's own node, which dies with it
    const boss = await join(first, 'boss');
    const bob = await join(second, 'bob');
    // Liveness bounds, not timings: four node processes and Redis share the CI machine with other suites.
    await boss.next((f) => f.kind === 'system/presence' && f.payload.participant.id === 'bob', 10_000);
    boss.send({ id: 'g1', kind: 'capability/grant', to: ['bob'], payload: { recipient: 'bob', capabilities: [READ_FILE] } });
    await bob.next((f) => f.kind === 'capability/grant', 10_000);
    for (let i = 0; i < 200; i++) boss.send(chat(`before ${i}`));
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'before 199', 10_000);

    const killedAt = Date.now();
    owner.child.kill('SIGKILL');
    await expect.poll(() => ownerOf(first), { timeout: TAKEOVER_LIMIT_MS, interval: 100 }).toMatch(/^n[123]$/);
    console.log(`failover: another node owned the space ${Date.now() - killedAt} ms after kill -9 of its owner`);

    // The node that died took alice with it: everyone is told she left.
    expect((await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave', 10_000)).payload.participant.id).toBe('alice');
    // The grant survived, and both survivors' connections go on without reconnecting.
    bob.send({ id: 'after', ...READ_FILE });
    expect((await boss.next((f) => f.kind === 'mcp/request' && f.from === 'bob', 10_000)).id).toBe('after');
    boss.send(chat('after'));
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'after', 10_000);

    // Nothing accepted before the kill is lost or reordered: another connection reads it all back from history.
    const rereader = await join(second, 'bob', 'after=0');
    const chats = () => rereader.received.filter((f) => f.kind === 'chat').map((f) => f.payload.text);
    const expected = [...Array.from({ length: 200 }, (_, i) => `before ${i}`), 'after'];
    await expect.poll(() => chats().length, { timeout: 5_000 }).toBeGreaterThanOrEqual(expected.length);
    expect(chats().slice(-expected.length)).toEqual(expected);
  }, 60_000);

  it("refuses the writes of an owner that stalled past its lease: what it processes on waking is never delivered twice, and its own node's sockets reconnect elsewhere", async () => {
    const alive = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const stalledId = await ownerOf(alive[0]);
    const stalled = alive.find((n) => n.id === stalledId)!;
    const [senderNode, readerNode] = alive.filter((n) => n !== stalled);
    const sender = await join(senderNode, 'alice');
    const reader = await join(readerNode, 'boss');
    // On the owner's own node: what it sends goes to the owner directly, not through the inbox.
    const onStalled = await join(stalled, 'bob');
    stalled.child.kill('SIGSTOP');
    try {
      await expect.poll(() => ownerOf(senderNode), { timeout: TAKEOVER_LIMIT_MS, interval: 100 }).not.toBe(stalledId);
      sender.send(chat('once'));
      await reader.next((f) => f.kind === 'chat' && f.payload.text === 'once', 10_000);
    } finally {
      stalled.child.kill('SIGCONT');
    }
    await expect.poll(() => stalled.output(), { timeout: 5_000 }).toMatch(/no longer owns s1/);
    sender.send(chat('then'));
    await reader.next((f) => f.kind === 'chat' && f.payload.text === 'then', 10_000);
    expect(reader.received.filter((f) => f.kind === 'chat' && f.payload.text === 'once')).toEqual([]);
    expect(await ownerOf(senderNode)).not.toBe(stalledId);
    // What bob sent there may have died with the stalled owner's writes: he is told to reconnect, and can, elsewhere.
    expect(await onStalled.closed).toMatchObject({ code: 1001 });
    await join(senderNode, 'bob');
  }, 60_000);

  it('marks the participants of a node that dies gone once its heartbeat expires; they reconnect to another node at once', async () => {
    const alive = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const ownerId = await ownerOf(alive[0]);
    const [doomed, watcher] = alive.filter((n) => n.id !== ownerId);
    const boss = await join(watcher, 'boss');
    await join(doomed, 'carol');
    await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'join' && f.payload.participant.id === 'carol', 10_000);
    const killedAt = Date.now();
    doomed.child.kill('SIGKILL');
    await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave' && f.payload.participant.id === 'carol', 10_000);
    console.log(`node death: its participant was marked gone ${Date.now() - killedAt} ms after kill -9`);
    const back = await join(watcher, 'carol');
    back.send(chat('back'));
    await boss.next((f) => f.kind === 'chat' && f.payload.text === 'back', 10_000);
  }, 30_000);

  it('closes the sockets of a node that was out of touch for longer than its heartbeat TTL: their clients reconnect and are heard again', async () => {
    const alive = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const ownerId = await ownerOf(alive[0]);
    const watcher = alive.find((n) => n.id === ownerId)!;
    const sleeper = alive.find((n) => n.id !== ownerId)!;
    const boss = await join(watcher, 'boss');
    const sleepy = await join(sleeper, 'dave'); // nobody else's: the earlier tests left the others online
    await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'join' && f.payload.participant.id === 'dave', 10_000);
    sleeper.child.kill('SIGSTOP');
    try {
      // The owner takes the silent node for dead and ends its sessions.
      await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave' && f.payload.participant.id === 'dave', 10_000);
    } finally {
      sleeper.child.kill('SIGCONT');
    }
    // Awake again, the node does not keep a socket whose session is gone (what it sent would go nowhere).
    expect(await sleepy.closed).toMatchObject({ code: 1001 });
    const back = await join(sleeper, 'dave');
    back.send(chat('awake'));
    await boss.next((f) => f.kind === 'chat' && f.payload.text === 'awake', 10_000);
  }, 30_000);
});
