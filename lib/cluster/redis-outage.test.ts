import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { freePort, spaceConfig, TestClient, tokenOf } from '../gateway/testing';
import { MEWClient } from '../sdk/mew-client';
import { clusterKeys } from './cluster-keys';
import { maskRedisUrl, openRedis } from './redis-connection';
import { chat, joiner, redisClient, startNode, startRedis, type TestNode, type TestRedis } from './testing';

/** Outages are reported this often in these tests (30 s in production), so that a short outage shows the rate limit. */
const REPORT_INTERVAL_MS = 1_500;
/** Liveness bounds: ioredis backs off up to ~5 s between attempts, leases last 3 s. Tests time nothing. */
const RECONNECT_LIMIT_MS = 20_000;
const DETECT_LIMIT_MS = 10_000;
/** How long Redis is frozen under load (SIGSTOP): longer than a lease and a node's heartbeat TTL (3 s). */
const FREEZE_MS = 5_000;
/** Per sender: 50 envelopes a second. */
const SEND_EVERY_MS = 20;
/** Load before and after the freeze. */
const STEADY_MS = 2_000;
const ALL = [{ kind: '*' }];
const config = () =>
  spaceConfig(
    's1',
    { boss: ALL, alice: [{ kind: 'chat' }], bob: [{ kind: 'chat' }], carol: [{ kind: 'chat' }] },
    { limits: { rate_per_second: 10_000, rate_burst: 10_000 } },
  );

let redis: TestRedis;
const nodes: TestNode[] = [];
const clients: TestClient[] = [];
const sdkClients: MEWClient[] = [];
const join = joiner(clients);
/** Everything the code under test printed with console.error, one string per call. */
let printed: string[] = [];
let consoleError: MockInstance;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  consoleError?.mockRestore();
  for (const c of clients.splice(0)) c.close();
  for (const c of sdkClients.splice(0)) c.disconnect();
  await Promise.all(nodes.splice(0).map((n) => n.node.close()));
  const r = redisClient(redis.url);
  await r.flushall();
  r.disconnect();
});

/** From now on, console.error goes to `printed` (and not to the test's output). */
function capture(): void {
  printed = [];
  consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    printed.push(args.map(String).join(' '));
  });
}

const linesWith = (text: string) => printed.filter((line) => line.includes(text));

async function node(id: string, options: Parameters<typeof startNode>[4] = {}): Promise<TestNode> {
  const started = await startNode(redis.url, id, [config()], undefined, { redisReport: { intervalMs: REPORT_INTERVAL_MS }, ...options });
  nodes.push(started);
  return started;
}

/** The spaces a node does not serve because their state is gone from Redis (`GET /cluster`). */
async function lostOn(of: TestNode): Promise<string[]> {
  return ((await (await fetch(of.httpUrl('/cluster'))).json()) as { lost: string[] }).lost;
}

/** `from` closes cleanly; resolves once `to` owns the space. */
async function handOver(from: TestNode, to: TestNode): Promise<void> {
  nodes.splice(nodes.indexOf(from), 1);
  await from.node.close();
  await expect.poll(() => to.node.ownedSpaces, { timeout: DETECT_LIMIT_MS }).toEqual(['s1']);
}

const auth = { headers: { Authorization: `Bearer ${tokenOf('boss')}` } };
async function verify(of: TestNode): Promise<{ status: number; body: { ok?: boolean; checked?: number; error?: string } }> {
  const response = await fetch(of.httpUrl('/api/spaces/s1/audit/verify'), auth);
  return { status: response.status, body: (await response.json()) as { ok?: boolean; checked?: number; error?: string } };
}

describe('a Redis outage, as the logs tell it', () => {
  it('says what is wrong once per interval per connection, with the error code and what happens meanwhile, and once when Redis is back', async () => {
    capture();
    const a = await node('a');
    await join(a, 'alice');
    const connections = ['node a:', 'node a (outbox):', 'node a, owner of s1:'];
    const haltedAt = Date.now();
    await redis.halt({ keepData: true }); // back with its data: this test is about the logs, not about losing state
    // Every connection reports the outage, and the first repeat (after the interval) counts what it held back.
    await expect
      .poll(() => connections.filter((who) => linesWith(who).some((l) => l.includes('is unreachable'))).length, { timeout: RECONNECT_LIMIT_MS })
      .toBe(3);
    await expect.poll(() => linesWith('more failed attempt').length, { timeout: RECONNECT_LIMIT_MS }).toBeGreaterThan(0);
    await redis.restart();
    // The node's own two connections come back; the owner's may be closed first, when the outage outlasted its lease.
    await expect
      .poll(() => connections.slice(0, 2).filter((who) => linesWith(who).some((l) => l.includes('is reachable again'))).length, { timeout: RECONNECT_LIMIT_MS })
      .toBe(2);
    const outageMs = Date.now() - haltedAt;

    expect(linesWith('[ioredis]')).toEqual([]);
    const outageLines = linesWith('is unreachable');
    for (const line of outageLines) {
      expect(line).toContain(`Redis at ${redis.url} is unreachable (ECONNREFUSED)`);
      expect(line).toMatch(/; retrying — \S/);
    }
    expect(linesWith('node a: Redis')[0]).toContain('spaces owned here stop accepting messages');
    const mostPerConnection = 1 + Math.ceil(outageMs / REPORT_INTERVAL_MS);
    for (const who of connections) {
      expect(linesWith(who).filter((l) => l.includes('is unreachable')).length).toBeLessThanOrEqual(mostPerConnection);
      expect(linesWith(who).filter((l) => l.includes('is reachable again')).length).toBeLessThanOrEqual(1);
    }
    // Attempts that were not printed were counted: fewer lines than failures, for the connections that came back.
    const back = linesWith('is reachable again');
    const failures = back.reduce((sum, line) => sum + Number(/\((\d+) failed attempts?\)/.exec(line)![1]), 0);
    const backOutageLines = outageLines.filter((line) => back.some((b) => b.startsWith(line.slice(0, line.indexOf(' Redis at')))));
    expect(backOutageLines.length).toBeLessThan(failures);
    console.log(
      `outage of ${outageMs} ms: ${failures} failed connection attempts over the connections that came back, ${outageLines.length} outage lines, ${printed.length} lines in all`,
    );
    // Nothing else was printed: no failed command is reported while its connection's outage is (the lease's loss may be).
    expect(printed.filter((line) => !outageLines.includes(line) && !line.includes('is reachable again') && !line.includes('no longer owns'))).toEqual([]);
  }, 60_000);

  it('never prints the password of the URL', async () => {
    capture();
    const url = `redis://mew:s3cret-pw@127.0.0.1:${await freePort()}`; // nothing listens there
    expect(maskRedisUrl(url)).toBe(url.replace('s3cret-pw', '***'));
    const r = openRedis(url, { who: 'probe', impact: 'nothing works' }, { maxRetriesPerRequest: 0 });
    try {
      await expect.poll(() => linesWith('probe:').length, { timeout: RECONNECT_LIMIT_MS }).toBeGreaterThan(0);
    } finally {
      r.disconnect();
    }
    expect(linesWith('probe:')[0]).toContain(`Redis at ${url.replace('s3cret-pw', '***')} is unreachable (ECONNREFUSED)`);
    expect(printed.join('\n')).not.toContain('s3cret-pw');
  });
});

describe('Redis emptied under a running cluster', () => {
  it('stops serving the space everywhere instead of restarting its audit chain at zero, tells its clients, and serves it again once Redis has it back', async () => {
    capture();
    const a = await node('a');
    const b = await node('b');
    expect(a.node.ownedSpaces).toEqual(['s1']);
    const alice = await join(a, 'alice'); // on the owner's node
    const bob = await join(b, 'bob');
    const boss = await join(b, 'boss');
    boss.send(chat('before'));
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'before', 5_000);
    const before = await verify(b);
    expect(before.body).toMatchObject({ ok: true });
    const chainLength = before.body.checked!;
    expect(chainLength).toBeGreaterThanOrEqual(3); // three joins at least
    const r = redisClient(redis.url);
    try {
      // What an operator's backup holds (the restore, further down): every key that does not expire.
      const backup: [string, Buffer][] = [];
      for (const key of await r.keys('mew:*')) if ((await r.pttl(key)) < 0) backup.push([key, (await r.dumpBuffer(key))!]);
      const fence = Number(await r.get(clusterKeys.fence('s1')));

      await r.flushall();
      // Meanwhile, no node may answer `ok` over a chain that restarted: it is polled until every node refuses the space.
      const verdicts: { status: number; ok?: boolean; checked?: number }[] = [];
      await expect
        .poll(
          async () => {
            for (const n of [a, b]) {
              const { status, body } = await verify(n);
              verdicts.push({ status, ok: body.ok, checked: body.checked });
            }
            return [a, b].every((n) => linesWith(`[cluster] ${n.node.nodeId}: the state of space s1 is gone from Redis`).length === 1);
          },
          { timeout: DETECT_LIMIT_MS, interval: 50 },
        )
        .toBe(true);
      expect(verdicts.filter((v) => v.ok && v.checked! < chainLength)).toEqual([]);
      for (const n of [a, b]) expect(await verify(n)).toMatchObject({ status: 503, body: { error: 'space_unavailable' } });
      const said = linesWith('[cluster] a: the state of space s1 is gone from Redis')[0];
      expect(said).toContain('restore Redis from its AOF or a replica');
      expect(said).toContain('MEW_CLUSTER_START_OVER=s1');
      // Every client is told, then closed with 1011: the SDK retries with backoff, so they come back once it is restored.
      for (const client of [alice, bob, boss]) {
        expect((await client.next((f) => f.kind === 'system/error', 5_000)).payload.error).toBe('space_unavailable');
        expect(await client.closed).toMatchObject({ code: 1011, reason: expect.stringContaining('gone from the cluster') });
      }
      expect(Number(await r.get(clusterKeys.lost('s1')))).toBeGreaterThanOrEqual(fence);
      // A node that never saw the space (no memory of its fence) refuses it too: the marker in Redis says so.
      const c = await node('c');
      expect(c.node.ownedSpaces).toEqual([]);
      expect(await lostOn(c)).toEqual(['s1']);
      const late = new TestClient(new WebSocket(c.wsUrl(), { headers: { Authorization: `Bearer ${tokenOf('alice')}` } }));
      clients.push(late);
      expect((await late.kind('system/error', 5_000)).payload.error).toBe('space_unavailable');
      expect(await late.closed).toMatchObject({ code: 1011 });
      expect(linesWith('no longer owns')).toEqual([]);
      expect(await r.exists(clusterKeys.meta('s1'), clusterKeys.audit('s1'), clusterKeys.history('s1'))).toBe(0);

      // The operator restores Redis from the backup: the nodes serve the space again by themselves, its chain whole.
      // In one transaction, as a restore at Redis's start is: a node taking the lease between the delete and the
      // restore would start the space afresh, and then find its fence gone back (seen under load in CI).
      const restore = r.multi().del(clusterKeys.lost('s1'), clusterKeys.fence('s1'));
      for (const [key, value] of backup) restore.restore(key, 0, value, 'REPLACE');
      await restore.exec();
      await expect.poll(() => nodes.flatMap((n) => n.node.ownedSpaces), { timeout: DETECT_LIMIT_MS }).toEqual(['s1']);
      await expect.poll(async () => (await Promise.all(nodes.map(lostOn))).flat(), { timeout: DETECT_LIMIT_MS }).toEqual([]);
      const after = await verify(c);
      expect(after.body).toMatchObject({ ok: true });
      expect(after.body.checked).toBeGreaterThanOrEqual(chainLength);
      const back = await join(c, 'carol', 'after=0');
      await back.next((f) => f.kind === 'chat' && f.payload.text === 'before', 5_000);
      // The sockets closed while the space was lost are gone from its restored presence too: only carol's is left.
      await expect
        .poll(async () => (await r.hvals(clusterKeys.presence('s1'))).map((v) => (JSON.parse(v) as { p: string }).p), { timeout: DETECT_LIMIT_MS })
        .toEqual(['carol']);
    } finally {
      r.disconnect();
    }
  }, 60_000);

  it('stops serving the space when redis-server comes back empty after a restart', async () => {
    capture();
    const a = await node('a');
    const alice = await join(a, 'alice');
    await redis.restart(); // without its data, as a Redis without AOF or replica would
    expect(await alice.closed).toMatchObject({ code: 1011 });
    await expect.poll(() => linesWith('[cluster] a: the state of space s1 is gone from Redis').length, { timeout: RECONNECT_LIMIT_MS }).toBe(1);
    expect(a.node.ownedSpaces).toEqual([]);
    expect(await verify(a)).toMatchObject({ status: 503, body: { error: 'space_unavailable' } });
  }, 40_000);

  it('refuses, at takeover, a space whose audit stream lost events, or whose history lost its epoch', async () => {
    capture();
    const r = redisClient(redis.url);
    try {
      const event = JSON.stringify({ space: 's1', type: 'PARTICIPANT_JOINED', actor: 'bob', ts: new Date().toISOString() });
      await r.xadd(clusterKeys.audit('s1'), '*', 'e', event);
      await r.hset(clusterKeys.meta('s1'), 'epoch', 'e1', 'audit', '3'); // three written, one left
      const a = await node('a');
      expect(a.node.ownedSpaces).toEqual([]);
      expect(linesWith('[cluster] a: the state of space s1 is gone from Redis (its audit stream holds 1 of the 3 events written')).toHaveLength(1);
      expect(await lostOn(a)).toEqual(['s1']);

      await r.flushall();
      await r.xadd(clusterKeys.history('s1'), '*', 's', '1', 'd', JSON.stringify(chat('orphan')), 't', '0');
      const b = await node('b');
      expect(b.node.ownedSpaces).toEqual([]);
      expect(
        linesWith('[cluster] b: the state of space s1 is gone from Redis (its history stream holds envelopes, but the epoch that numbers them is gone'),
      ).toHaveLength(1);
    } finally {
      r.disconnect();
    }
  });

  it('serves a space from an older copy restored into Redis only when told to (MEW_CLUSTER_ACCEPT_RESTORE), keeping that copy', async () => {
    capture();
    const a = await node('a');
    const b = await node('b');
    const boss = await join(b, 'boss');
    boss.send(chat('in the copy'));
    await boss.next((f) => f.kind === 'chat' && f.payload.text === 'in the copy', 5_000);
    const r = redisClient(redis.url);
    try {
      const copy: [string, Buffer][] = [];
      for (const key of await r.keys('mew:{s1}:*')) if ((await r.pttl(key)) < 0) copy.push([key, (await r.dumpBuffer(key))!]);
      await handOver(a, b); // the fence moves on past the copy's
      boss.send(chat('after the copy'));
      await boss.next((f) => f.kind === 'chat' && f.payload.text === 'after the copy', 5_000);
      await r.flushall();
      await expect.poll(() => lostOn(b), { timeout: DETECT_LIMIT_MS }).toEqual(['s1']);
      // Restored, but older than the takeover b saw: its fence is behind, so it stays lost.
      await r.flushall();
      for (const [key, value] of copy) await r.restore(key, 0, value, 'REPLACE');
      await expect.poll(() => r.exists(clusterKeys.lost('s1')), { timeout: DETECT_LIMIT_MS }).toBe(1);
      expect(b.node.ownedSpaces).toEqual([]);
      const c = await node('c', { acceptRestore: ['s1'] });
      expect(linesWith('[cluster] c: MEW_CLUSTER_ACCEPT_RESTORE: space s1')).toHaveLength(1);
      await expect.poll(async () => (await Promise.all([b, c].map(lostOn))).flat(), { timeout: DETECT_LIMIT_MS }).toEqual([]);
      const reader = await join(c, 'carol', 'after=0');
      await reader.next((f) => f.kind === 'chat' && f.payload.text === 'in the copy', 5_000);
      expect(reader.received.filter((f) => f.kind === 'chat' && f.payload.text === 'after the copy')).toEqual([]);
      expect((await verify(c)).body).toMatchObject({ ok: true });
    } finally {
      r.disconnect();
    }
  }, 30_000);

  it('starts a lost space over empty only when told to (MEW_CLUSTER_START_OVER), and then every node serves it again', async () => {
    capture();
    const a = await node('a');
    const bob = await join(a, 'bob');
    const r = redisClient(redis.url);
    try {
      await r.flushall();
      expect(await bob.closed).toMatchObject({ code: 1011 });
      await expect.poll(() => r.exists(clusterKeys.lost('s1')), { timeout: DETECT_LIMIT_MS }).toBe(1);
      const floor = Number(await r.get(clusterKeys.lost('s1')));
      const b = await node('b', { startOver: ['s1'] });
      expect(linesWith('[cluster] b: MEW_CLUSTER_START_OVER: space s1')).toHaveLength(1);
      expect(b.node.ownedSpaces).toEqual(['s1']);
      expect(Number(await r.get(clusterKeys.fence('s1')))).toBeGreaterThan(floor);
      // A node that remembers the older fence accepts the new start: it was moved above what it saw.
      await expect.poll(() => linesWith('[cluster] a: space s1 is back in Redis').length, { timeout: DETECT_LIMIT_MS }).toBe(1);
      const again = await join(a, 'bob');
      again.send(chat('a new start'));
      await again.next((f) => f.kind === 'chat' && f.payload.text === 'a new start', 5_000);
      expect((await verify(a)).body).toMatchObject({ ok: true });
    } finally {
      r.disconnect();
    }
  }, 30_000);
});

describe('sends around a Redis freeze (SIGSTOP)', () => {
  it('delivers every envelope whose echo its sender saw to the other client, once', async () => {
    const a = await node('a');
    const b = await node('b');
    expect(a.node.ownedSpaces).toEqual(['s1']);
    interface Tally {
      client: MEWClient;
      sent: Set<string>;
      echoed: Set<string>;
      /** The other's envelopes received, by id, and how often each came again. */
      received: Set<string>;
      duplicates: number;
      drops: number;
    }
    const connect = async (via: TestNode, id: string): Promise<Tally> => {
      const client = new MEWClient({ gateway: via.wsUrl(), space: 's1', token: tokenOf(id) });
      sdkClients.push(client);
      const tally: Tally = { client, sent: new Set(), echoed: new Set(), received: new Set(), duplicates: 0, drops: 0 };
      const count = (env: { id: string; kind: string; from?: string }) => {
        if (env.kind !== 'chat') return;
        if (env.from === id) {
          if (tally.sent.has(env.id)) tally.echoed.add(env.id);
        } else if (tally.received.has(env.id)) tally.duplicates++;
        else tally.received.add(env.id);
      };
      client.on('message', count);
      client.on('duplicate', (env) => {
        if (env.kind === 'chat' && env.from !== id) tally.duplicates++;
      });
      client.on('status', (change) => {
        if (change.status === 'disconnected') tally.drops++;
      });
      await client.connect();
      return tally;
    };
    // One on the owner's node (its frames go to the owner directly), one through the inbox.
    const alice = await connect(a, 'alice');
    const bob = await connect(b, 'bob');
    let n = 0;
    const load = setInterval(() => {
      n++;
      for (const [tally, who] of [
        [alice, 'alice'],
        [bob, 'bob'],
      ] as const) {
        tally.sent.add(tally.client.send({ kind: 'chat', payload: { text: `${who} ${n}` } }).id);
      }
    }, SEND_EVERY_MS);
    const frozen = redis.process();
    try {
      await until(() => alice.echoed.size >= STEADY_MS / SEND_EVERY_MS / 2, 10_000, 'steady load before the freeze');
      frozen.kill('SIGSTOP');
      try {
        await pause(FREEZE_MS);
      } finally {
        frozen.kill('SIGCONT');
      }
      // Both senders' envelopes flow again, for as long as the load ran before the freeze.
      const goal = (t: Tally) => t.sent.size + STEADY_MS / SEND_EVERY_MS;
      const goals = [goal(alice), goal(bob)];
      await until(
        () => alice.echoed.size >= goals[0] && bob.echoed.size >= goals[1],
        30_000,
        'load flowing again after the freeze',
        () => `echoed ${alice.echoed.size}/${goals[0]}, ${bob.echoed.size}/${goals[1]}`,
      );
    } finally {
      clearInterval(load);
    }
    // Everything acknowledged reaches the other side (a liveness bound, not a timing)...
    const missing = () => [...[...alice.echoed].filter((id) => !bob.received.has(id)), ...[...bob.echoed].filter((id) => !alice.received.has(id))];
    await until(
      () => missing().length === 0,
      30_000,
      'every echoed envelope delivered',
      () => `${missing().length} missing`,
    );
    // ...and, with the SDK sending again what a dropped connection left unacknowledged, everything sent is (reported,
    // not asserted: that is the SDK's promise, not the cluster's).
    const unechoed = () => [...alice.sent, ...bob.sent].filter((id) => !alice.echoed.has(id) && !bob.echoed.has(id));
    await until(
      () => unechoed().length === 0,
      30_000,
      'every send acknowledged',
      () => `${unechoed().length} never echoed`,
    ).catch((error: Error) => console.log(error.message));
    const report = (who: string, t: Tally, other: Tally) =>
      `${who}: sent ${t.sent.size}, echoed ${t.echoed.size}, delivered to the other ${[...t.echoed].filter((id) => other.received.has(id)).length} ` +
      `(+${[...other.received].filter((id) => t.sent.has(id) && !t.echoed.has(id)).length} never echoed to the sender), duplicates at the other ${other.duplicates}, its own drops ${t.drops}`;
    console.log(
      `Redis frozen ${FREEZE_MS} ms under 2 × ${1000 / SEND_EVERY_MS} msg/s:\n  ${report('alice (owner node)', alice, bob)}\n  ${report('bob (other node)', bob, alice)}`,
    );
    expect(missing()).toEqual([]);
  }, 90_000);
});

/** Waits until `done()` holds, checking every 50 ms; fails after `limitMs` saying what it waited for. */
async function until(done: () => boolean, limitMs: number, what: string, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms ${detail()}`);
    await pause(50);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
