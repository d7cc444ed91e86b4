import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../protocol';
import { DATABASE_FILE } from './persistence/gateway-database';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestGateway } from './testing';

const config = spaceConfig('durable', { alice: [{ kind: '*' }], bob: [{ kind: 'chat' }] });

/** Makes every history write fail (as a full disk would) until the returned function is called. */
function failHistoryWrites(dataDir: string): () => void {
  const db = new Database(join(dataDir, DATABASE_FILE));
  db.exec("CREATE TRIGGER fail_history BEFORE INSERT ON history_chunks BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
  return () => {
    db.exec('DROP TRIGGER fail_history');
    db.close();
  };
}

describe('durable before visible', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await gw?.close();
    gw = undefined;
  });

  /** A gateway with a data dir, and a promise of the next failed history write it reports. */
  async function start() {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-durable-'));
    gw = await startGatewayWith({ configs: [config], dataDir });
    const failed = new Promise<void>((resolve) => {
      vi.spyOn(console, 'error').mockImplementation((...args) => {
        if (String(args[0]).startsWith('[history] cannot write')) resolve();
      });
    });
    return { gw, dataDir, failed };
  }

  it('shows nobody an envelope, not even its sender, until it is written; then everyone, in order', async () => {
    const { gw, dataDir, failed } = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=durable');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=durable');
    const restore = failHistoryWrites(dataDir);
    alice.send({ id: 'held', kind: 'chat', payload: { text: 'not yet' } });
    await failed;
    expect(alice.received.some((f) => f.id === 'held')).toBe(false);
    expect(bob.received.some((f) => f.id === 'held')).toBe(false);
    restore(); // the store retries by itself; the held turn goes out once written
    expect((await bob.next((f) => f.id === 'held', 5000)).payload).toEqual({ text: 'not yet' });
    await alice.next((f) => f.id === 'held');
  });

  it('answers an HTTP send "accepted" only once it is written', async () => {
    const { gw, dataDir, failed } = await start();
    const restore = failHistoryWrites(dataDir);
    let answered = false;
    const response = fetch(gw.httpUrl('/participants/alice/messages?space=durable'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('alice')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'chat', payload: { text: 'by http' } }),
    }).then((r) => {
      answered = true;
      return r;
    });
    await failed;
    expect(answered).toBe(false);
    restore();
    expect((await response).status).toBe(202);
  });

  it('tells in-process observers only of what is written', async () => {
    const { gw, dataDir, failed } = await start();
    const seen: string[] = [];
    gw.gateway.spaces.get('durable')!.observe((envelope: Envelope) => seen.push(envelope.id));
    const alice = await joinAs(gw, tokenOf('alice'), 'space=durable');
    const restore = failHistoryWrites(dataDir);
    alice.send({ id: 'watched', kind: 'chat', payload: { text: 'x' } });
    await failed;
    expect(seen).not.toContain('watched');
    restore();
    await alice.next((f) => f.id === 'watched', 5000);
    await vi.waitFor(() => expect(seen).toContain('watched'));
  });
});

describe('a resent envelope id', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('happens once: the sender alone gets the original again, others nothing, the audit one record', async () => {
    gw = await startGatewayWith({ configs: [config] });
    const alice = await joinAs(gw, tokenOf('alice'), 'space=durable');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=durable');
    const proposal = { id: 'once', kind: 'mcp/proposal', to: ['bob'], payload: { method: 'tools/call', params: { name: 'charge_card', arguments: {} } } };
    alice.send(proposal);
    const first = await alice.next((f) => f.id === 'once');
    alice.send(proposal);
    const again = await alice.next((f) => f.id === 'once');
    expect(again).toEqual(first); // same cursor, same ts: the original, not a new one
    alice.send({ kind: 'chat', payload: { text: 'after' } }); // a marker: bob has seen everything before it
    await bob.next((f) => f.kind === 'chat');
    expect(bob.received.filter((f) => f.id === 'once')).toHaveLength(1);
    const created = gw.audit.query({ space: 'durable', type: 'PROPOSAL_CREATED' });
    expect(created.map((e) => e.envelope_id)).toEqual(['once']);
  });

  it('by HTTP is answered as accepted again, marked duplicate, and routed once', async () => {
    gw = await startGatewayWith({ configs: [config] });
    const bob = await joinAs(gw, tokenOf('bob'), 'space=durable');
    const post = () =>
      fetch(gw!.httpUrl('/participants/alice/messages?space=durable'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenOf('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id: 'http-once', kind: 'chat', payload: { text: 'hi' } }),
      }).then((r) => r.json());
    expect(await post()).toMatchObject({ id: 'http-once', status: 'accepted' });
    expect(await post()).toMatchObject({ id: 'http-once', status: 'accepted', duplicate: true });
    await bob.next((f) => f.id === 'http-once');
    const after = await fetch(gw.httpUrl('/participants/bob/messages?space=durable'), { headers: { Authorization: `Bearer ${tokenOf('bob')}` } }).then((r) =>
      r.json(),
    );
    expect(after.messages.filter((m: Envelope) => m.id === 'http-once')).toHaveLength(1);
  });

  it('of another participant is not taken for a resend', async () => {
    gw = await startGatewayWith({ configs: [config] });
    const alice = await joinAs(gw, tokenOf('alice'), 'space=durable');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=durable');
    alice.send({ id: 'shared', kind: 'chat', payload: { text: 'from alice' } });
    await bob.next((f) => f.id === 'shared');
    bob.send({ id: 'shared', kind: 'chat', payload: { text: 'from bob' } });
    const echoed = await bob.next((f) => f.id === 'shared');
    expect(echoed).toMatchObject({ from: 'bob', payload: { text: 'from bob' } });
  });
});
