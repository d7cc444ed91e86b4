import { afterEach, describe, expect, it } from 'vitest';
import { MemoryHistoryStore } from './memory-history-store';
import { joinAs, spaceConfig, startGatewayWith, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from './testing';

const chatOnly = [{ kind: 'chat' }];
const config = spaceConfig('hist', { alice: chatOnly, bob: chatOnly, carol: chatOnly }, { limits: { history_size: 50 } });
const texts = (frames: Frame[]) => frames.filter((f) => f.kind === 'chat').map((f) => f.payload.text);

/** Sends chats as `from` and waits until `from` has seen its own echoes (so they are routed and numbered). */
async function chats(client: TestClient, ...list: string[]): Promise<Frame[]> {
  for (const text of list) client.send({ kind: 'chat', payload: { text } });
  const echoes: Frame[] = [];
  for (const text of list) echoes.push(await client.next((f) => f.kind === 'chat' && f.payload.text === text));
  return echoes;
}

/** Everything a fresh connection receives up to and including its welcome. */
async function joinAfter(gw: TestGateway, id: string, after: string): Promise<{ client: TestClient; beforeWelcome: Frame[] }> {
  const client = await joinAs(gw, tokenOf(id), `space=hist&after=${encodeURIComponent(after)}`);
  const beforeWelcome = client.received.splice(0);
  return { client, beforeWelcome };
}

describe('history numbering and catch-up by cursor', () => {
  const gateways: TestGateway[] = [];
  afterEach(async () => {
    for (const gw of gateways.splice(0)) await gw.close();
  });
  const start = async (history?: MemoryHistoryStore) => {
    const gw = history ? await startGatewayWith({ configs: [config], history }) : await startTestGateway(config);
    gateways.push(gw);
    return gw;
  };

  it('numbers every delivered envelope with a cursor that increases within one epoch', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    const [one, two] = await chats(alice, 'one', 'two');
    expect(alice.welcome!.cursor).toMatch(/^[0-9a-f]{8}-\d+$/);
    const seq = (cursor: string) => Number(cursor.split('-')[1]);
    expect(seq(two.cursor)).toBe(seq(one.cursor) + 1);
    expect(one.cursor.split('-')[0]).toBe(alice.welcome!.cursor.split('-')[0]);
  });

  it('sends a reconnecting client what it missed, before its welcome, in order, without duplicates', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=hist');
    const [seen] = await chats(alice, 'seen by bob');
    await bob.next((f) => f.payload?.text === 'seen by bob');
    bob.close();
    await bob.closed;
    await chats(alice, 'missed 1', 'missed 2', 'missed 3');

    const { client, beforeWelcome } = await joinAfter(gw, 'bob', seen.cursor);
    expect(texts(beforeWelcome)).toEqual(['missed 1', 'missed 2', 'missed 3']);
    expect(client.welcome!.payload.catch_up).toEqual({ replayed: beforeWelcome.length, complete: true });
    expect(beforeWelcome.some((f) => f.kind === 'system/welcome')).toBe(false);
    await chats(alice, 'live');
    await client.next((f) => f.payload?.text === 'live');
    expect(texts(client.received)).toEqual([]);
  });

  it('keeps other participants’ targeted envelopes out of a catch-up and honours directed routing', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    const [mark] = await chats(alice, 'mark');
    alice.send({ kind: 'mcp/request', payload: { method: 'tools/list' } }); // refused: a system/error to alice only
    await alice.kind('system/error');
    alice.send({ kind: 'chat', to: ['carol'], payload: { text: 'for carol' } });
    alice.send({ kind: 'chat', payload: { text: 'for all' } });
    await alice.next((f) => f.payload?.text === 'for all');

    const bob = await joinAfter(gw, 'bob', mark.cursor);
    expect(texts(bob.beforeWelcome)).toEqual(['for carol', 'for all']);
    expect(bob.beforeWelcome.some((f) => f.kind === 'system/error')).toBe(false);
    const directed = await joinAs(gw, tokenOf('bob'), `space=hist&routing=directed&after=${mark.cursor}`);
    expect(texts(directed.received)).toEqual(['for all']);
  });

  it('catches up across a gateway restart: what a client queued during it reaches peers that reconnect later', async () => {
    const history = new MemoryHistoryStore();
    const first = await start(history);
    const alice = await joinAs(first, tokenOf('alice'), 'space=hist');
    const bob = await joinAs(first, tokenOf('bob'), 'space=hist');
    const [last] = await chats(alice, 'before restart');
    const bobCursor = (await bob.next((f) => f.payload?.text === 'before restart')).cursor;
    await first.close();
    gateways.splice(gateways.indexOf(first), 1);

    const second = await start(history);
    const aliceAgain = await joinAs(second, tokenOf('alice'), `space=hist&after=${last.cursor}`);
    await chats(aliceAgain, 'queued during restart');
    const bobAgain = await joinAfter(second, 'bob', bobCursor);
    expect(texts(bobAgain.beforeWelcome)).toEqual(['queued during restart']);
    expect(bobAgain.client.welcome!.payload.catch_up.complete).toBe(true);
  });

  it('answers a cursor from another epoch or the start with everything retained, and says whether any was lost', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    await chats(alice, 'a', 'b');
    const foreign = await joinAfter(gw, 'bob', '0badc0de-1');
    expect(texts(foreign.beforeWelcome)).toEqual(['a', 'b']);
    expect(foreign.client.welcome!.payload.catch_up.complete).toBe(false);
    const fromStart = await joinAfter(gw, 'carol', '0');
    expect(texts(fromStart.beforeWelcome)).toEqual(['a', 'b']);
    expect(fromStart.client.welcome!.payload.catch_up.complete).toBe(true);

    await chats(alice, ...Array.from({ length: 60 }, (_, i) => `flood ${i}`)); // history_size is 50
    const tooOld = await joinAfter(gw, 'bob', alice.welcome!.cursor);
    expect(tooOld.client.welcome!.payload.catch_up.complete).toBe(false);
    expect(texts(tooOld.beforeWelcome).at(-1)).toBe('flood 59');
  });

  it('refuses a malformed cursor at the upgrade and over HTTP with invalid_cursor', async () => {
    const gw = await start();
    await expect(joinAs(gw, tokenOf('alice'), 'space=hist&after=yesterday')).rejects.toMatchObject({ status: 400 });
    const res = await fetch(gw.httpUrl('/participants/alice/messages?space=hist&after=nope'), { headers: { Authorization: `Bearer ${tokenOf('alice')}` } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_cursor');
  });

  it('pages history over HTTP by cursor: {messages, cursor, complete}, continuing from the last cursor', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    const [first] = await chats(alice, 'one', 'two');
    const get = async (query: string) =>
      (await fetch(gw.httpUrl(`/participants/bob/messages?space=hist&${query}`), { headers: { Authorization: `Bearer ${tokenOf('bob')}` } })).json();
    const page = await get(`after=${first.cursor}`);
    expect(texts(page.messages)).toEqual(['two']);
    expect(page).toMatchObject({ cursor: page.messages[0].cursor, complete: true });
    const empty = await get(`after=${page.cursor}`);
    expect(empty).toEqual({ messages: [], cursor: page.cursor, complete: true });
    expect(texts((await get('after=0')).messages)).toEqual(['one', 'two']);
  });

  it('refuses a cursor in an envelope a client sends', async () => {
    const gw = await start();
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hist');
    alice.send({ kind: 'chat', cursor: 'abcdef01-1', payload: { text: 'forged' } });
    const error = await alice.kind('system/error');
    expect(error.payload).toMatchObject({ error: 'invalid_envelope' });
    expect(error.payload.message).toContain('cursor');
  });
});
