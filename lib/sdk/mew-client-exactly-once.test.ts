import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { CLOSE_CODES, MEW_SUBPROTOCOL } from '../protocol';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import { MEWClient, type MEWClientOptions } from './mew-client';
import { nextEvent, recordEvents, TEST_BACKOFF } from './testing';
import { createWebSocketTransport, type TransportFactory } from './transport';

/** A frame as our gateway would send it (`from` the gateway unless given). */
function envelope(kind: string, payload: unknown, extra: Record<string, unknown> = {}) {
  return { protocol: 'mew/v0.4', id: randomUUID(), ts: new Date().toISOString(), from: 'system:gateway', kind, payload, ...extra };
}

const welcome = (id: string) => envelope('system/welcome', { you: { id, capabilities: [{ kind: 'chat' }] }, participants: [] }, { to: [id] });

/** A tiny gateway that plays `script` on each connection (the nth connection gets n = 0, 1, …). */
async function scriptedGateway(script: (ws: WebSocket, n: number) => void) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (offered) => (offered.has(MEW_SUBPROTOCOL) ? MEW_SUBPROTOCOL : false) });
  await once(wss, 'listening');
  const urls: string[] = [];
  let n = 0;
  wss.on('connection', (ws, request) => {
    urls.push(request.url ?? '');
    script(ws, n++);
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`,
    urls,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * The real transport, recording every frame sent; `dropSends` makes sends vanish on the way (a connection dying
 * under them) and `dropEchoesOf` loses the frames naming an id on the way back (the gateway had it, the echo died).
 */
function lossyTransport() {
  const state = { sent: [] as string[], dropSends: false, dropEchoesOf: new Set<string>() };
  const transport: TransportFactory = (request, handlers) => {
    const real = createWebSocketTransport(request, {
      ...handlers,
      onMessage: (data) => {
        if (typeof data === 'string' && [...state.dropEchoesOf].some((id) => data.includes(id))) return;
        handlers.onMessage(data);
      },
    });
    return {
      ...real,
      send: (data) => {
        state.sent.push(String(data));
        if (!state.dropSends) real.send(data);
      },
    };
  };
  return { transport, state };
}

const sentIds = (frames: string[]) => frames.map((frame) => (JSON.parse(frame) as { id?: string }).id);

describe('MEWClient emits each envelope id once', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function client(options: MEWClientOptions): MEWClient {
    const c = new MEWClient({ backoff: TEST_BACKOFF, ...options });
    cleanups.push(() => c.disconnect());
    return c;
  }

  it('passes an envelope delivered twice to listeners once; the second is a duplicate event', async () => {
    const chat = envelope('chat', { text: 'once' }, { from: 'bob', cursor: 'e-1' });
    const gateway = await scriptedGateway((ws) => {
      ws.send(JSON.stringify(welcome('alice')));
      ws.send(JSON.stringify(chat));
      ws.send(JSON.stringify({ ...chat, cursor: 'e-2' }));
      ws.send(JSON.stringify(envelope('chat', { text: 'after' }, { from: 'bob', cursor: 'e-3' })));
    });
    cleanups.push(gateway.close);
    const alice = client({ gateway: gateway.url, space: 'room', token: 'alice-token' });
    const messages = recordEvents(alice, 'message');
    const chats = recordEvents(alice, 'chat');
    const duplicates = recordEvents(alice, 'duplicate');
    await alice.connect();
    await expect.poll(() => chats.map((e) => e.payload.text)).toEqual(['once', 'after']);
    expect(messages.filter((e) => e.id === chat.id)).toHaveLength(1);
    expect(duplicates.map((e) => [e.id, e.cursor])).toEqual([[chat.id, 'e-2']]);
    expect(alice.cursor).toBe('e-3');
  });

  it('does not move its cursor back for the original the gateway sends again after the welcome (the answer to a resend)', async () => {
    const mine = envelope('chat', { text: 'mine' }, { from: 'alice', cursor: 'e-1' });
    const gateway = await scriptedGateway((ws) => {
      ws.send(JSON.stringify(welcome('alice')));
      ws.send(JSON.stringify(mine));
      ws.send(JSON.stringify(envelope('chat', { text: 'later' }, { from: 'bob', cursor: 'e-2' })));
      ws.send(JSON.stringify(mine)); // the stored original, old cursor and all
    });
    cleanups.push(gateway.close);
    const alice = client({ gateway: gateway.url, space: 'room', token: 'alice-token' });
    const duplicates = recordEvents(alice, 'duplicate');
    await alice.connect();
    await expect.poll(() => duplicates.length).toBe(1);
    expect(alice.cursor).toBe('e-2');
  });

  it('remembers the ids across a reconnect: a replay of what it saw is not emitted again', async () => {
    const seen = envelope('chat', { text: 'seen before the drop' }, { from: 'bob', cursor: 'e-1' });
    const missed = envelope('chat', { text: 'missed' }, { from: 'bob', cursor: 'e-2' });
    const gateway = await scriptedGateway((ws, n) => {
      if (n === 0) {
        ws.send(JSON.stringify(welcome('alice')));
        ws.send(JSON.stringify(seen));
        ws.close(1012, 'restarting');
      } else {
        // A restarted gateway that lost track of the client's cursor replays everything it kept.
        ws.send(JSON.stringify(seen));
        ws.send(JSON.stringify(missed));
        ws.send(JSON.stringify(welcome('alice')));
      }
    });
    cleanups.push(gateway.close);
    const alice = client({ gateway: gateway.url, space: 'room', token: 'alice-token' });
    const chats = recordEvents(alice, 'chat');
    await alice.connect();
    await expect.poll(() => chats.map((e) => e.payload.text)).toEqual(['seen before the drop', 'missed']);
    expect(gateway.urls[1]).toContain('after=e-1');
  });

  it('forgets the oldest ids beyond recentEnvelopeIds', async () => {
    const first = envelope('chat', { text: 'first' }, { from: 'bob' });
    const gateway = await scriptedGateway((ws) => {
      ws.send(JSON.stringify(welcome('alice')));
      ws.send(JSON.stringify(first));
      ws.send(JSON.stringify(envelope('chat', { text: 'second' }, { from: 'bob' })));
      ws.send(JSON.stringify(envelope('chat', { text: 'third' }, { from: 'bob' })));
      ws.send(JSON.stringify(first));
    });
    cleanups.push(gateway.close);
    const alice = client({ gateway: gateway.url, space: 'room', token: 'alice-token', recentEnvelopeIds: 2 });
    const chats = recordEvents(alice, 'chat');
    await alice.connect();
    await expect.poll(() => chats.map((e) => e.payload.text)).toEqual(['first', 'second', 'third', 'first']);
  });
});

describe('MEWClient sends in doubt again, and says which it gave up on', () => {
  let gw: TestGateway;
  const clients: MEWClient[] = [];

  function client(id: string, options: Partial<MEWClientOptions> = {}): MEWClient {
    const c = new MEWClient({ gateway: gw.wsUrl(), space: 'room', token: tokenOf(id), backoff: TEST_BACKOFF, ...options });
    clients.push(c);
    return c;
  }

  /** Drops alice's connection from the gateway's side (a non-final close: she reconnects). */
  function dropAlice(code: number = CLOSE_CODES.slow_consumer): void {
    gw.gateway.spaces.get('room')!.participants.get('alice')!.links[0].connection.close(code, 'dropped');
  }

  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig('room', { alice: ['chat'], bob: ['chat'] }));
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await gw.close();
  });

  it('sends an envelope lost with its connection again after the next welcome, same id and text, before the queue', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport });
    await alice.connect();
    const bob = await joinAs(gw, tokenOf('bob'), 'space=room');
    lossy.state.dropSends = true;
    const lost = alice.send({ kind: 'chat', payload: { text: 'lost on the way' } });
    const down = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
    dropAlice();
    await down;
    lossy.state.dropSends = false;
    const queued = alice.send({ kind: 'chat', payload: { text: 'queued while away' } });
    const echoes = recordEvents(alice, 'chat');
    expect((await bob.kind('chat')).id).toBe(lost.id);
    expect((await bob.kind('chat')).id).toBe(queued.id);
    const texts = lossy.state.sent.filter((frame) => frame.includes(lost.id));
    expect(texts).toHaveLength(2);
    expect(texts[1]).toBe(texts[0]);
    expect(sentIds(lossy.state.sent)).toEqual([lost.id, lost.id, queued.id]);
    await expect.poll(() => echoes.map((e) => e.id)).toEqual([lost.id, queued.id]);
  });

  it('does not send again what the catch-up before the welcome showed the gateway had', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport });
    await alice.connect();
    const bob = await joinAs(gw, tokenOf('bob'), 'space=room');
    const sent = alice.send({ kind: 'chat', payload: { text: 'the echo is lost' } });
    lossy.state.dropEchoesOf.add(sent.id);
    await bob.kind('chat');
    const down = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
    dropAlice();
    await down;
    lossy.state.dropEchoesOf.clear();
    const echo = nextEvent(alice, 'chat', (e) => e.id === sent.id);
    await nextEvent(alice, 'status', (s) => s.status === 'ready');
    await echo;
    expect(sentIds(lossy.state.sent)).toEqual([sent.id]);
  });

  // Needs the gateway to recognise a resent id and answer with the original (SubmitResult.duplicate).
  it('without a catch-up, sends it again and the gateway answers with the original: one echo, routed once', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport, catchUp: 'none' });
    await alice.connect();
    const bob = await joinAs(gw, tokenOf('bob'), 'space=room');
    const sent = alice.send({ kind: 'chat', payload: { text: 'accepted, echo lost' } });
    lossy.state.dropEchoesOf.add(sent.id);
    const original = await bob.kind('chat');
    const down = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
    dropAlice();
    await down;
    lossy.state.dropEchoesOf.clear();
    const echoes = recordEvents(alice, 'chat');
    await nextEvent(alice, 'status', (s) => s.status === 'ready');
    await expect.poll(() => echoes.map((e) => e.id)).toEqual([sent.id]);
    expect(echoes[0].cursor).toBe(original.cursor);
    expect(sentIds(lossy.state.sent)).toEqual([sent.id, sent.id]);
    const later = alice.send({ kind: 'chat', payload: { text: 'later' } });
    expect((await bob.kind('chat')).id).toBe(later.id); // nothing routed in between
  });

  it('disconnect() reports the sends in doubt as unacknowledged, not those still queued', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport });
    await alice.connect();
    lossy.state.dropSends = true;
    const inDoubt = [1, 2].map((n) => alice.send({ kind: 'chat', payload: { text: `in doubt ${n}` } }).id);
    const unacknowledged = recordEvents(alice, 'unacknowledged');
    const statuses = recordEvents(alice, 'status');
    alice.disconnect();
    alice.send({ kind: 'chat', payload: { text: 'queued for a later connect()' } });
    expect(unacknowledged).toEqual([{ ids: inDoubt, reason: expect.stringMatching(/disconnect\(\)/) }]);
    expect(statuses.map((s) => s.status)).toEqual(['disconnected']);
    expect(alice.queuedCount).toBe(1);
  });

  it('a final close reports the sends in doubt before the error status; a reconnect does not', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport });
    await alice.connect();
    lossy.state.dropSends = true;
    const events: string[] = [];
    alice.on('unacknowledged', ({ ids }) => events.push(`unacknowledged ${ids.length}`));
    alice.on('status', ({ status }) => events.push(status));
    alice.send({ kind: 'chat', payload: { text: 'in doubt' } });
    dropAlice(CLOSE_CODES.slow_consumer);
    await nextEvent(alice, 'status', (s) => s.status === 'ready');
    lossy.state.dropSends = true; // its resend is lost too
    dropAlice(CLOSE_CODES.kicked);
    await nextEvent(alice, 'status', (s) => s.status === 'error');
    expect(events).toEqual(['disconnected', 'connecting', 'connected', 'ready', 'unacknowledged 1', 'error']);
  });

  it('gives up on the oldest send beyond outboundQueueLimit awaiting acknowledgement', async () => {
    const lossy = lossyTransport();
    const alice = client('alice', { transport: lossy.transport, outboundQueueLimit: 2 });
    await alice.connect();
    lossy.state.dropSends = true;
    const unacknowledged = recordEvents(alice, 'unacknowledged');
    const [oldest] = [1, 2, 3].map((n) => alice.send({ kind: 'chat', payload: { text: `${n}` } }).id);
    expect(unacknowledged).toEqual([{ ids: [oldest], reason: expect.stringMatching(/more than 2 sends/) }]);
  });
});
