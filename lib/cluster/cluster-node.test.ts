import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, TestClient, tokenOf } from '../gateway/testing';
import { AUDIT_MAX_QUEUE } from '../gateway/audit';
import { OutboundMessage } from '../gateway/outbound-message';
import { MEWParticipant } from '../sdk/mew-participant';
import { clusterKeys } from './cluster-keys';
import { readClusterTokens } from './cluster-tokens';
import { decodeOutboxEntry, unpackEntry, type OutboxDelivery } from './cluster-wire';
import { FencedWriter } from './fenced-writer';
import { SpaceLease } from './space-lease';
import { chat, joiner, redisClient, startNode, startRedis, type TestNode, type TestRedis } from './testing';

const ALL = [{ kind: '*' }];
const READ_FILE = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
const CHAT = [{ kind: 'chat' }];
/** Room for a burst of 1 000 envelopes from one participant. */
const config = () => spaceConfig('s1', { boss: ALL, alice: CHAT, bob: CHAT, carol: CHAT }, { limits: { rate_per_second: 10_000, rate_burst: 10_000 } });

let redis: TestRedis;
const nodes: TestNode[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(nodes.splice(0).map((n) => n.node.close()));
  await flushRedis();
});

async function flushRedis() {
  const r = redisClient(redis.url);
  await r.flushall();
  r.disconnect();
}

async function cluster(count: number): Promise<TestNode[]> {
  for (let i = 0; i < count; i++) nodes.push(await startNode(redis.url, `n${i}`, [config()]));
  return nodes;
}

const join = joiner(clients);

/** The node that owns `space` now, and another. */
function ownerAndOther(of: TestNode[], space = 's1'): { owner: TestNode; other: TestNode } {
  const owner = of.find((n) => n.node.ownedSpaces.includes(space))!;
  return { owner, other: of.find((n) => n !== owner)! };
}

/** The owner leaves cleanly; resolves once `survivor` owns the space. */
async function handOver(owner: TestNode, survivor: TestNode, space = 's1'): Promise<void> {
  nodes.splice(nodes.indexOf(owner), 1);
  await owner.node.close();
  await expect.poll(() => survivor.node.ownedSpaces, { timeout: 5_000 }).toEqual([space]);
}

describe('cluster mode', () => {
  it('sees presence across nodes and relays chats from one node to the others complete and in order', async () => {
    const [a, b, c] = await cluster(3);
    const alice = await join(a, 'alice');
    const bob = await join(b, 'bob');
    expect((await alice.next((f) => f.kind === 'system/presence' && f.payload.event === 'join')).payload.participant.id).toBe('bob');
    const carol = await join(c, 'carol');
    expect(carol.welcome!.payload.participants.map((p: { id: string }) => p.id).sort()).toEqual(['alice', 'bob']);
    for (let i = 0; i < 1000; i++) alice.send(chat(`m${i}`));
    for (const reader of [bob, carol]) {
      const texts: string[] = [];
      while (texts.length < 1000) texts.push((await reader.kind('chat', 10_000)).payload.text);
      expect(texts).toEqual(Array.from({ length: 1000 }, (_, i) => `m${i}`));
    }
  }, 30_000);
});

describe('cluster mode: one order for security state', () => {
  it('judges the next envelope of a participant on B by a grant made through A, and a revocation likewise', async () => {
    const [a, b] = await cluster(2);
    const boss = await join(a, 'boss');
    const bob = await join(b, 'bob');
    bob.send({ id: 'early', ...READ_FILE });
    expect(await bob.kind('system/error')).toMatchObject({ correlation_id: ['early'], payload: { error: 'capability_violation' } });
    boss.send({ id: 'g1', kind: 'capability/grant', to: ['bob'], payload: { recipient: 'bob', capabilities: [READ_FILE] } });
    await boss.next((f) => f.kind === 'capability/grant' && f.id === 'g1');
    bob.send({ id: 'granted', ...READ_FILE });
    expect((await boss.next((f) => f.kind === 'mcp/request' && f.from === 'bob')).id).toBe('granted');
    // Sent back to back through A and B: the owner judges bob's request after the revocation it received first.
    boss.send({ id: 'r1', kind: 'capability/revoke', to: ['bob'], payload: { recipient: 'bob', grant_id: 'g1' } });
    await boss.next((f) => f.kind === 'capability/revoke' && f.id === 'r1');
    bob.send({ id: 'late', ...READ_FILE });
    expect(await bob.next((f) => f.kind === 'system/error' && f.correlation_id?.[0] === 'late')).toMatchObject({ payload: { error: 'capability_violation' } });
  });

  it('enforces on B a pause made through A, and lifts it with the resume', async () => {
    const [a, b] = await cluster(2);
    const boss = await join(a, 'boss');
    const bob = await join(b, 'bob');
    boss.send({ id: 'p1', kind: 'participant/pause', to: ['bob'], payload: { reason: 'review' } });
    await bob.kind('participant/pause');
    bob.send({ id: 'work', ...chat('more work') });
    expect(await bob.kind('system/error')).toMatchObject({ correlation_id: ['work'], payload: { error: 'participant_paused', paused_by: 'boss' } });
    boss.send({ kind: 'participant/resume', to: ['bob'], correlation_id: ['p1'], payload: {} });
    await bob.kind('participant/resume');
    bob.send(chat('back'));
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'bob')).payload.text).toBe('back');
  });

  it('answers bad input through any node precisely and keeps serving the connection', async () => {
    // The owner's own node hands frames to the owner directly, the other forwards them through the inbox.
    const { owner, other } = ownerAndOther(await cluster(2));
    for (const [node, id] of [
      [other, 'bob'],
      [owner, 'carol'],
    ] as const) {
      const client = await join(node, id);
      client.send('{not json');
      expect((await client.kind('system/error')).payload.error).toBe('invalid_json');
      client.send({ id: 'forged', kind: 'system/welcome', payload: {} });
      expect(await client.kind('system/error')).toMatchObject({ correlation_id: ['forged'], payload: { error: 'reserved_kind' } });
      client.send({ id: 'big', ...chat('x'.repeat(1_200_000)) }); // over max_frame_bytes (1 MiB), under the socket's hard limit
      expect(await client.kind('system/error')).toMatchObject({ payload: { error: 'message_too_large' } });
      client.send({ id: 'other', kind: 'mcp/request', payload: { method: 'tools/call' } });
      expect(await client.kind('system/error')).toMatchObject({ correlation_id: ['other'], payload: { error: 'capability_violation' } });
      client.send(chat('still here'));
      expect((await client.next((f) => f.kind === 'chat' && f.from === id)).payload.text).toBe('still here');
    }
  });

  it('tells everyone when a participant on another node drops without a close, and keeps serving the rest', async () => {
    const { owner, other } = ownerAndOther(await cluster(2));
    const boss = await join(owner, 'boss');
    const bob = await join(other, 'bob');
    const carol = await join(other, 'carol');
    const alice = await join(owner, 'alice'); // on the owner's own node, whose frames skip the inbox
    bob.ws.terminate();
    const left = await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave');
    expect(left.payload.participant.id).toBe('bob');
    alice.ws.terminate();
    expect((await boss.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave')).payload.participant.id).toBe('alice');
    carol.send(chat('still served'));
    expect((await boss.next((f) => f.kind === 'chat')).payload.text).toBe('still served');
  });

  it('refuses an unknown token on any node with a system/error and 4401', async () => {
    const [, b] = await cluster(2);
    const stranger = new TestClient(new WebSocket(b.wsUrl(), { headers: { Authorization: 'Bearer not-a-token-of-this-space' } }));
    clients.push(stranger);
    await stranger.opened;
    expect((await stranger.kind('system/error')).payload.error).toBe('invalid_token');
    expect((await stranger.closed).code).toBe(4401);
  });

  it('keeps the space when its owner leaves cleanly: another node takes it at once, with its state and history', async () => {
    const { owner, other: survivor } = ownerAndOther(await cluster(2));
    const boss = await join(owner, 'boss');
    const bob = await join(survivor, 'bob');
    boss.send({ id: 'p1', kind: 'participant/pause', to: ['bob'], payload: {} });
    await bob.kind('participant/pause');
    boss.send(chat('before'));
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'before');
    await handOver(owner, survivor);
    // bob's connection resumed on the new owner: still paused, and told who is present now.
    bob.send({ id: 'still', ...chat('am I paused?') });
    expect(await bob.next((f) => f.kind === 'system/error' && f.correlation_id?.[0] === 'still', 5_000)).toMatchObject({
      payload: { error: 'participant_paused' },
    });
    const carol = await join(survivor, 'carol', 'after=0');
    const texts: string[] = [];
    for (let f = await carol.kind('chat'); ; f = await carol.kind('chat')) {
      texts.push(f.payload.text);
      if (f.payload.text === 'before') break;
    }
    expect(texts).toEqual(['before']);
    // The audit record of the pause, made under the previous owner, is served by the new one, its chain intact.
    const auth = { headers: { Authorization: `Bearer ${tokenOf('boss')}` } };
    const audit = (await (await fetch(survivor.httpUrl('/api/spaces/s1/audit?type=PARTICIPANT_PAUSED'), auth)).json()) as { events: { subject: string }[] };
    expect(audit.events.map((e) => e.subject)).toEqual(['bob']);
    expect(await (await fetch(survivor.httpUrl('/api/spaces/s1/audit/verify'), auth)).json()).toMatchObject({ ok: true });
  });
});

describe('cluster mode: a long-lived space', () => {
  it("takes over a space whose audit stream outgrew the audit log's queue, keeping every event and the chain", async () => {
    const events = AUDIT_MAX_QUEUE + 1_000;
    const r = redisClient(redis.url);
    try {
      for (let at = 0; at < events; at += 10_000) {
        const batch = r.pipeline();
        for (let i = at; i < Math.min(events, at + 10_000); i++) {
          batch.xadd(
            clusterKeys.audit('s1'),
            '*',
            'e',
            JSON.stringify({ space: 's1', type: 'PARTICIPANT_JOINED', actor: 'bob', details: { i }, ts: new Date().toISOString() }),
          );
        }
        await batch.exec();
      }
    } finally {
      r.disconnect();
    }
    const [node] = await cluster(1);
    const auth = { headers: { Authorization: `Bearer ${tokenOf('boss')}` } };
    const verified = (await (await fetch(node.httpUrl('/api/spaces/s1/audit/verify'), auth)).json()) as { ok: boolean; checked: number };
    expect(verified.ok).toBe(true);
    expect(verified.checked).toBeGreaterThanOrEqual(events);
    const newest = await fetch(node.httpUrl('/api/spaces/s1/audit?type=PARTICIPANT_JOINED&limit=1&order=desc'), auth);
    expect(newest.status).toBe(200);
    expect(((await newest.json()) as { events: { details: { i: number } }[] }).events[0].details.i).toBe(events - 1);
    // Rebuilding it took longer than the lease lasts: the lease was renewed meanwhile, so this node took it once.
    expect(node.node.ownedSpaces).toEqual(['s1']);
  });
});

describe('cluster mode: open streams', () => {
  it("keeps a space's open streams across a handover: frames still flow, newcomers are told of them", async () => {
    const { owner, other: survivor } = ownerAndOther(await cluster(2));
    const boss = await join(survivor, 'boss');
    const bob = await join(survivor, 'bob');
    boss.send({ id: 'req', kind: 'stream/request', to: ['gateway'], payload: { direction: 'upload' } });
    const id = (await boss.next((f) => f.kind === 'stream/open')).payload.stream_id as string;
    await handOver(owner, survivor);
    boss.send(`#${id}#after the handover`);
    expect(await bob.next((f) => 'stream' in f)).toEqual({ stream: `#${id}#after the handover` });
    const carol = await join(survivor, 'carol');
    expect(carol.welcome!.payload.active_streams.map((s: { stream_id: string }) => s.stream_id)).toEqual([id]);
  });
});

describe('cluster mode over HTTP', () => {
  it("serves a space's HTTP endpoints on any node, from its owner", async () => {
    const { owner, other } = ownerAndOther(await cluster(2));
    const boss = await join(owner, 'boss');
    const auth = { Authorization: `Bearer ${tokenOf('bob')}`, 'Content-Type': 'application/json' };
    const posted = await fetch(other.httpUrl('/participants/bob/messages?space=s1'), {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(chat('over http')),
    });
    expect(posted.status).toBe(202);
    expect((await boss.next((f) => f.kind === 'chat' && f.from === 'bob')).payload.text).toBe('over http');
    const page = (await (await fetch(other.httpUrl('/participants/bob/messages?space=s1&after=0'), { headers: auth })).json()) as {
      messages: { kind: string }[];
    };
    expect(page.messages.some((m) => m.kind === 'chat')).toBe(true);
    const refused = await fetch(other.httpUrl('/participants/bob/messages?space=s1'), {
      method: 'POST',
      headers: { ...auth, Authorization: 'Bearer wrong' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const garbled = await fetch(other.httpUrl('/api/spaces/%E0%A4%A/audit'), { headers: auth });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: string }).error).toBe('invalid_request');
    // Config tokens are not minted; the admin token and the implicit rule supervisor's are, by the first owner, and kept in Redis.
    expect(await readClusterTokens(redis.url, 's1')).toEqual({
      participants: { rules: expect.stringMatching(/^[\w-]{43}$/) },
      admin: expect.stringMatching(/^[\w-]{43}$/),
    });
    await expect(readClusterTokens(redis.url, 'nowhere')).rejects.toThrow(/no records of space "nowhere"/);
    // Served by the owner too; these nodes are not given anything to launch.
    const processes = await fetch(other.httpUrl('/api/spaces/s1/processes'), { headers: auth });
    expect(processes.status).toBe(200);
    expect(await processes.json()).toEqual({ processes: [] });
  });
});

describe('fenced writer', () => {
  it('splits a large turn into several outbox entries without losing or reordering a delivery', async () => {
    const r = redisClient(redis.url);
    try {
      await r.set(clusterKeys.fence('w'), '7');
      const writer = new FencedWriter(r, 'w', 7, () => undefined);
      const outbox = clusterKeys.nodeOutbox('n1');
      const count = 2_000; // several times what one entry holds
      for (let i = 0; i < count; i++) {
        const message = new OutboundMessage(Buffer.from(`m${i}`), undefined, Date.now());
        writer.deliver(outbox, 'a', message);
        writer.deliver(outbox, 'b', message);
      }
      await writer.drained();
      const entries = await r.xrangeBuffer(outbox, '-', '+');
      expect(entries.length).toBeGreaterThan(1);
      const items = entries.flatMap(([, fields]) => decodeOutboxEntry(unpackEntry(fields))) as OutboxDelivery[];
      const receivedBy = (connection: string) => items.filter((d) => d.connections.includes(connection)).map((d) => d.data.toString());
      const all = Array.from({ length: count }, (_, i) => `m${i}`);
      expect(receivedBy('a')).toEqual(all);
      expect(receivedBy('b')).toEqual(all);
      // One item names both connections, except where an entry filled up between them.
      expect(items.length).toBeLessThan(count + entries.length);
    } finally {
      r.disconnect();
    }
  });
});

describe('fenced writer: a lost reply', () => {
  it('sends a batch whose reply was lost again without applying it twice, and what came meanwhile after it', async () => {
    const r = redisClient(redis.url);
    try {
      await r.set(clusterKeys.fence('w'), '3');
      let dropped = 0;
      // The first script runs in Redis, but its reply never arrives (as when the connection drops just after).
      const flaky = new Proxy(r, {
        get(target, key, receiver) {
          if (key !== 'evalsha' && key !== 'eval') return Reflect.get(target, key, receiver);
          return async (...args: unknown[]) => {
            const answer = await (Reflect.get(target, key, receiver) as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (dropped++ === 0) throw new Error('read ECONNRESET');
            return answer;
          };
        },
      });
      const errors: string[] = [];
      const writer = new FencedWriter(
        flaky,
        'w',
        3,
        () => undefined,
        undefined,
        (e) => errors.push(e.message),
      );
      writer.append(clusterKeys.history('w'), 0, ['d', 'first']);
      await Promise.resolve(); // the first batch is on its way
      writer.append(clusterKeys.history('w'), 0, ['d', 'second']);
      await writer.drained();
      expect(errors).toEqual(['read ECONNRESET']);
      expect((await r.xrange(clusterKeys.history('w'), '-', '+')).map(([, fields]) => fields[1])).toEqual(['first', 'second']);
    } finally {
      r.disconnect();
    }
  });
});

describe('fencing', () => {
  it('refuses every write of an owner whose lease another node took over', async () => {
    const r = redisClient(redis.url);
    try {
      const first = new SpaceLease(r, 'f', 'n1', 60_000);
      const second = new SpaceLease(r, 'f', 'n2', 60_000);
      const fence1 = (await first.acquire()).fence;
      expect(fence1).toBe(1);
      expect(await second.acquire()).toEqual({ outcome: 'held', fence: 1 });
      const fenced: string[] = [];
      const stale = new FencedWriter(r, 'f', fence1, (why) => fenced.push(why));
      stale.append(clusterKeys.history('f'), 0, ['s', '1', 'd', 'accepted']);
      await stale.drained();
      await r.del(clusterKeys.lease('f')); // as if n1 stalled past its TTL
      expect(await second.acquire()).toEqual({ outcome: 'acquired', fence: 2 });
      expect(await first.renew(fence1)).toBe('gone');
      stale.append(clusterKeys.history('f'), 0, ['s', '2', 'd', 'stale']);
      await stale.drained();
      expect(fenced).toEqual(['taken']);
      expect(stale.lost).toBe(true);
      const history = await r.xrange(clusterKeys.history('f'), '-', '+');
      expect(history.map(([, fields]) => fields[3])).toEqual(['accepted']);
    } finally {
      r.disconnect();
    }
  });
});

describe('cluster mode: approval rules', () => {
  const participants: MEWParticipant[] = [];
  afterEach(() => {
    for (const p of participants.splice(0)) p.disconnect();
  });

  it("applies a space's rules from its owner, and keeps them, with their stats, across a handover", async () => {
    const auto = spaceConfig(
      'auto',
      {
        lead: ALL,
        agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'mcp/response', 'chat'] }],
        tools: [{ kind: 'mcp/response' }],
        rules: [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }],
      },
      { automation: { supervisor: 'rules' } },
    );
    for (const id of ['n0', 'n1']) nodes.push(await startNode(redis.url, id, [auto]));
    const { owner, other: survivor } = ownerAndOther(nodes, 'auto');
    const connect = async (id: string) => {
      const participant = new MEWParticipant({ gateway: survivor.wsUrl(), space: 'auto', token: tokenOf(id), autoDiscovery: false });
      participants.push(participant);
      if (id === 'tools')
        participant.tools.register({ name: 'note_down', security: { risk_level: 'moderate' }, execute: ({ text }) => `Noted: ${String(text)}` });
      await participant.connect();
      return participant;
    };
    await connect('tools');
    const agent = await connect('agent');
    const rule = {
      name: 'agent notes',
      decision: 'approve',
      match: { proposer: 'agent', tool: 'note_down' },
      examples: { match: [{ proposer: 'agent', targets: ['tools'], method: 'tools/call', tool: 'note_down', arguments: { text: 'a' } }] },
    };
    const api = (path: string, init: RequestInit = {}) =>
      fetch(survivor.httpUrl(`/api/spaces/auto/rules${path}`), {
        ...init,
        headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
      });
    expect((await api('', { method: 'POST', body: JSON.stringify(rule) })).status).toBe(201);
    const note = (text: string) => agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text } } }, 10_000);
    expect(JSON.stringify(await note('first'))).toContain('Noted: first');

    await handOver(owner, survivor, 'auto');
    expect(JSON.stringify(await note('second'))).toContain('Noted: second');
    const { rules } = (await (await api('')).json()) as { rules: { name: string; hits: number }[] };
    expect(rules).toMatchObject([{ name: 'agent notes', hits: 2 }]);
  }, 30_000);

  it('runs a supervisor in a space whose config names none (the implicit one, on the owner), and refuses rules where the config turns it off', async () => {
    const plain = spaceConfig('plain', { lead: ALL, agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'chat'] }], tools: [{ kind: 'mcp/response' }] });
    const manual = spaceConfig('manual', { lead: ALL }, { automation: { supervisor: false } });
    for (const id of ['n0', 'n1']) nodes.push(await startNode(redis.url, id, [plain, manual]));
    const { owner, other: survivor } = ownerAndOther(nodes, 'plain');
    const connect = async (id: string) => {
      const participant = new MEWParticipant({ gateway: survivor.wsUrl(), space: 'plain', token: tokenOf(id), autoDiscovery: false });
      participants.push(participant);
      if (id === 'tools') participant.tools.register({ name: 'peek', annotations: { readOnlyHint: true }, execute: ({ text }) => `Peeked: ${String(text)}` });
      await participant.connect();
      return participant;
    };
    await connect('tools');
    const agent = await connect('agent');
    const api = (space: string, init: RequestInit = {}) =>
      fetch(survivor.httpUrl(`/api/spaces/${space}/rules`), {
        ...init,
        headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
      });
    const rule = { name: 'agent peeks', decision: 'approve', match: { proposer: 'agent' } };
    expect((await api('plain', { method: 'POST', body: JSON.stringify(rule) })).status).toBe(201);
    const peek = (text: string) => agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'peek', arguments: { text } } }, 10_000);
    expect(JSON.stringify(await peek('first'))).toContain('Peeked: first');
    // The next owner's supervisor joins with the same minted token.
    nodes.splice(nodes.indexOf(owner), 1);
    await owner.node.close();
    await expect.poll(() => survivor.node.ownedSpaces, { timeout: 5_000 }).toContain('plain');
    expect(JSON.stringify(await peek('second'))).toContain('Peeked: second');

    const refused = await api('manual', { method: 'POST', body: JSON.stringify(rule) });
    expect([refused.status, (await refused.json()).error]).toEqual([409, 'no_rule_supervisor']);
  }, 30_000);
});
