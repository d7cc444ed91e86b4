import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_CODES } from '../protocol';
import { MemoryHistoryStore, parseSpaceConfig } from '../gateway';
import { createGatewayServer, type GatewayServer } from '../host/gateway-server';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import { MEWClient, type MEWClientOptions } from './mew-client';
import { ConnectionClosedError, InvalidEnvelopeError, OutboundQueueFullError } from './sdk-errors';
import { leakyTransport, nextEvent, recordEvents, recordStatuses, TEST_BACKOFF } from './testing';
import { createWebSocketTransport, type TransportFactory } from './transport';

const config = spaceConfig('room', { alice: ['chat'], bob: ['chat'] });

/**
 * Fake timers that still follow the wall clock (sockets keep working), so a test can jump past every reconnect a
 * client might schedule and see that none happens, without sleeping.
 */
function fakeTimers(): void {
  vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
}

/** Longer than any reconnect delay of TEST_BACKOFF, jittered or not. */
const PAST_EVERY_RETRY_MS = TEST_BACKOFF.maxDelayMs * 20;

describe('MEWClient against the gateway', () => {
  let gw: TestGateway;
  const clients: MEWClient[] = [];
  const extraServers: GatewayServer[] = [];

  function client(id: string, options: Partial<MEWClientOptions> = {}): MEWClient {
    const c = new MEWClient({ gateway: gw.wsUrl(), space: 'room', token: tokenOf(id), backoff: TEST_BACKOFF, ...options });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    gw = await startTestGateway(config);
  });
  afterEach(async () => {
    vi.useRealTimers();
    for (const c of clients.splice(0)) c.disconnect();
    await gw.close();
    for (const s of extraServers.splice(0)) await s.close();
  });

  it('goes disconnected → connecting → connected → ready and learns its id and capabilities from the welcome', async () => {
    const alice = client('alice');
    const statuses = recordStatuses(alice);
    expect(alice.status).toBe('disconnected');
    await alice.connect();
    expect(statuses).toEqual(['connecting', 'connected', 'ready']);
    expect(alice.participantId).toBe('alice');
    expect(alice.welcome?.payload.you.capabilities).toEqual([{ kind: 'chat' }]);
    await alice.ready(); // already ready: resolves at once
  });

  it('sends with its own id, receives the echo and per-kind events, and stops calling a listener after unsubscribe', async () => {
    const alice = client('alice');
    const bob = client('bob');
    await Promise.all([alice.connect(), bob.connect()]);
    const bobChats = recordEvents(bob, 'chat');
    const offMessage = bob.on('message', () => undefined);
    const echo = nextEvent(alice, 'chat');
    const sent = alice.send({ kind: 'chat', payload: { text: 'hello' } });
    expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await echo).toMatchObject({ id: sent.id, from: 'alice', payload: { text: 'hello' } });
    await expect.poll(() => bobChats.map((e) => e.id)).toEqual([sent.id]);

    const off = bob.on('chat', () => {
      throw new Error('should have been unsubscribed');
    });
    off();
    offMessage();
    const errors = recordEvents(bob, 'error');
    alice.send({ kind: 'chat', payload: { text: 'again' } });
    await expect.poll(() => bobChats.length).toBe(2);
    expect(errors).toEqual([]);
  });

  it('refuses to send an invalid envelope, before anything reaches the gateway', async () => {
    const alice = client('alice');
    await alice.connect();
    expect(() => alice.send({ kind: 'chat', payload: { text: 42 } } as never)).toThrow(InvalidEnvelopeError);
  });

  it('treats a refused token as final: status error with 4401, connect() rejects, no reconnect', async () => {
    fakeTimers();
    const mallory = new MEWClient({ gateway: gw.wsUrl(), space: 'room', token: 'wrong-token', backoff: TEST_BACKOFF });
    clients.push(mallory);
    const statuses = recordStatuses(mallory);
    await expect(mallory.connect()).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(mallory.status).toBe('error');
    expect(mallory.lastClose?.code).toBe(CLOSE_CODES.unauthorized);
    await vi.advanceTimersByTimeAsync(PAST_EVERY_RETRY_MS);
    expect(statuses).toEqual(['connecting', 'error']);
    expect(() => mallory.send({ kind: 'chat', payload: { text: 'x' } })).toThrow(ConnectionClosedError);
  });

  it('does not reconnect when an exclusive connection of the same participant replaces it (4409)', async () => {
    fakeTimers();
    const first = client('alice');
    await first.connect();
    const statuses = recordStatuses(first);
    const second = client('alice', { exclusive: true });
    await second.connect();
    await expect.poll(() => first.status).toBe('error');
    expect(first.lastClose?.code).toBe(CLOSE_CODES.replaced);
    await vi.advanceTimersByTimeAsync(PAST_EVERY_RETRY_MS);
    expect(statuses).toEqual(['error']);
    expect(second.status).toBe('ready');
  });

  it('does not reconnect after being kicked (4403)', async () => {
    const alice = client('alice');
    await alice.connect();
    gw.gateway.spaces.get('room')!.participants.get('alice')!.links[0].connection.close(CLOSE_CODES.kicked, 'kicked');
    await expect.poll(() => alice.status).toBe('error');
    expect(alice.lastClose).toEqual({ code: CLOSE_CODES.kicked, reason: 'kicked' });
  });

  it('reconnects after a server-side drop (4429) and delivers a send made while disconnected after the new welcome', async () => {
    const alice = client('alice', { backoff: { minDelayMs: 150, maxDelayMs: 150 } });
    await alice.connect();
    const bob = await joinAs(gw, tokenOf('bob'), 'space=room');
    const disconnected = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
    gw.gateway.spaces.get('room')!.participants.get('alice')!.links[0].connection.close(CLOSE_CODES.slow_consumer, 'slow consumer');
    const change = await disconnected;
    expect(change).toMatchObject({ close: { code: CLOSE_CODES.slow_consumer }, willReconnect: true });
    const sent = alice.send({ kind: 'chat', payload: { text: 'sent while away' } });
    expect(alice.queuedCount).toBe(1);
    expect((await bob.kind('chat')).id).toBe(sent.id);
    expect(alice.status).toBe('ready');
    expect(alice.queuedCount).toBe(0);
  });

  it('survives a gateway restart on the same port, retrying while it is down, and flushes the queue afterwards', async () => {
    const alice = client('alice');
    await alice.connect();
    const port = gw.port;
    const attempts = recordEvents(alice, 'status');
    const down = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
    await gw.close();
    await down;
    const sent = alice.send({ kind: 'chat', payload: { text: 'after restart' } });
    // Several refused attempts while nothing listens.
    await expect.poll(() => attempts.filter((s) => s.status === 'connecting').length).toBeGreaterThan(1);
    const restarted = createGatewayServer({ spaces: [parseSpaceConfig(config)] });
    extraServers.push(restarted);
    const echo = nextEvent(alice, 'chat', (e) => e.id === sent.id, 5000);
    await restarted.listen(port, '127.0.0.1');
    expect((await echo).payload.text).toBe('after restart');
  });

  it('gives up after maxReconnectAttempts: status error, with the reason, and ready() rejects', async () => {
    fakeTimers();
    const alice = client('alice', { maxReconnectAttempts: 2 });
    await alice.connect();
    const statuses = recordStatuses(alice);
    const gaveUp = nextEvent(alice, 'status', (s) => s.status === 'error', 5000);
    await gw.close();
    await vi.advanceTimersByTimeAsync(PAST_EVERY_RETRY_MS);
    expect((await gaveUp).close?.reason).toMatch(/^gave up after 2 reconnect attempts \(last: /);
    expect(statuses).toEqual(['disconnected', 'connecting', 'disconnected', 'connecting', 'error']);
    await expect(alice.ready()).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(() => alice.send({ kind: 'chat', payload: { text: 'too late' } })).toThrow(ConnectionClosedError);
    await vi.advanceTimersByTimeAsync(PAST_EVERY_RETRY_MS);
    expect(statuses.at(-1)).toBe('error'); // no attempt after giving up
  });

  describe('over a tiny rate limit (20/s, bursts of 1)', () => {
    async function limited(options: Partial<MEWClientOptions> = {}): Promise<MEWClient> {
      const slow = await startTestGateway(spaceConfig('slow', { alice: ['chat'] }, { limits: { rate_per_second: 20, rate_burst: 1 } }));
      extraServers.push(slow);
      const alice = new MEWClient({ gateway: slow.wsUrl(), space: 'slow', token: tokenOf('alice'), backoff: TEST_BACKOFF, ...options });
      clients.push(alice);
      await alice.connect();
      return alice;
    }

    it('sends a rate-limited envelope again after retry_after_ms: a burst over the limit all arrives, with no error heard', async () => {
      const alice = await limited();
      const refusals = recordEvents(alice, 'system/error');
      const echoes = recordEvents(alice, 'chat');
      const sent = ['1', '2', '3'].map((text) => alice.send({ kind: 'chat', payload: { text } }).id);
      await expect.poll(() => echoes.map((e) => e.id).sort()).toEqual([...sent].sort());
      expect(refusals).toEqual([]);
    });

    it('passes the refusal on once its retries are spent', async () => {
      const alice = await limited({ rateLimitRetries: 1 });
      const refusal = nextEvent(alice, 'system/error');
      const echoes = recordEvents(alice, 'chat');
      // The first goes through; the other two are retried together after the hint, and only one token is back by then.
      const [, second, third] = ['1', '2', '3'].map((text) => alice.send({ kind: 'chat', payload: { text } }).id);
      const { payload, correlation_id } = await refusal;
      expect(payload).toMatchObject({ error: 'rate_limited', retry_after_ms: expect.any(Number) });
      expect([second, third]).toContain(correlation_id?.[0]);
      await expect.poll(() => echoes.length).toBe(2);
    });
  });

  it('refuses a send with a clear error once the outbound queue is full, and flushes what it kept in order', async () => {
    const alice = client('alice', { outboundQueueLimit: 2 });
    const first = alice.send({ kind: 'chat', payload: { text: '1' } });
    const second = alice.send({ kind: 'chat', payload: { text: '2' } });
    expect(() => alice.send({ kind: 'chat', payload: { text: '3' } })).toThrow(OutboundQueueFullError);
    expect(() => alice.send({ kind: 'chat', payload: { text: '3' } })).toThrow(/outbound queue is full/);
    const echoes = recordEvents(alice, 'chat');
    await alice.connect();
    await expect.poll(() => echoes.map((e) => e.id)).toEqual([first.id, second.id]);
  });

  it('keeps a healthy connection when pongs come back, and replaces one whose pongs stop', async () => {
    let pongs = 0;
    const counting: TransportFactory = (request, handlers) =>
      createWebSocketTransport(request, { ...handlers, onHeartbeat: () => (pongs++, handlers.onHeartbeat()) });
    const healthy = client('alice', { heartbeatIntervalMs: 40, transport: counting });
    await healthy.connect();
    const healthyStatuses = recordStatuses(healthy);
    await expect.poll(() => pongs).toBeGreaterThanOrEqual(5); // five liveness rounds answered
    expect(healthyStatuses).toEqual([]);

    // A transport that pings into the void, like a half-open TCP connection in a quiet space.
    const deaf: TransportFactory = (request, handlers) => {
      const real = createWebSocketTransport(request, { ...handlers, onHeartbeat: () => undefined });
      return { ...real, ping: () => undefined };
    };
    const silent = client('bob', { heartbeatIntervalMs: 60, transport: deaf });
    await silent.connect();
    const change = await nextEvent(silent, 'status', (s) => s.status === 'disconnected', 2000);
    expect(change.close?.reason).toMatch(/nothing heard/);
    await nextEvent(silent, 'status', (s) => s.status === 'ready');
  });

  it('retries an attempt whose welcome never comes', async () => {
    let attempts = 0;
    const welcomeEater: TransportFactory = (request, handlers) => {
      attempts++;
      // The first attempt swallows every frame, so its welcome is lost.
      const swallow = attempts === 1;
      return createWebSocketTransport(request, { ...handlers, onMessage: (d) => swallow || handlers.onMessage(d) });
    };
    const alice = client('alice', { connectTimeoutMs: 150, transport: welcomeEater });
    await alice.connect();
    expect(attempts).toBe(2);
    expect(alice.lastClose?.reason).toMatch(/no welcome within 150 ms/);
  });

  it('reports frames that are not valid envelopes as error events and keeps going', async () => {
    let deliver!: (data: string) => void;
    const fake: TransportFactory = (_request, handlers) => {
      deliver = handlers.onMessage;
      queueMicrotask(handlers.onOpen);
      return { isOpen: () => true, send: () => undefined, close: () => undefined };
    };
    const alice = client('alice', { transport: fake });
    alice.connect().catch(() => undefined);
    const errors = recordEvents(alice, 'error');
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    deliver('not json');
    deliver(JSON.stringify({ kind: 'chat', payload: {} }));
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/not JSON/), expect.stringMatching(/invalid envelope/)]);
    deliver(
      JSON.stringify({
        protocol: 'mew/v0.4',
        id: 'w',
        ts: '2025-01-01T00:00:00Z',
        from: 'system:gateway',
        to: ['alice'],
        kind: 'system/welcome',
        payload: { you: { id: 'alice', capabilities: [] }, participants: [] },
      }),
    );
    expect(alice.status).toBe('ready');
  });

  it('parses stream frames from text and binary frames into stream/data events', async () => {
    let deliver!: (data: string | ArrayBuffer) => void;
    const fake: TransportFactory = (_request, handlers) => {
      deliver = handlers.onMessage;
      return { isOpen: () => true, send: () => undefined, close: () => undefined };
    };
    const alice = client('alice', { transport: fake });
    alice.connect().catch(() => undefined);
    const data = recordEvents(alice, 'stream/data');
    deliver('#s-1#hello #world');
    deliver(new Uint8Array([0x23, 0x73, 0x23, 1, 2, 3]).buffer);
    expect(data).toEqual([
      { streamId: 's-1', data: 'hello #world' },
      { streamId: 's', data: new Uint8Array([1, 2, 3]) },
    ]);
  });

  it('does not send stream frames while not ready', () => {
    const alice = client('alice');
    expect(alice.sendStreamData('s-1', 'x')).toBe(false);
  });

  it('stops reconnecting after disconnect() and rejects a pending ready()', async () => {
    fakeTimers();
    const alice = client('alice');
    const connecting = alice.connect();
    alice.disconnect();
    await expect(connecting).rejects.toBeInstanceOf(ConnectionClosedError);
    const statuses = recordStatuses(alice);
    await vi.advanceTimersByTimeAsync(PAST_EVERY_RETRY_MS);
    expect(statuses).toEqual([]);
    expect(alice.status).toBe('disconnected');
  });

  describe('catch-up by the gateway cursor', () => {
    const chatTexts = (envelopes: { kind: string; payload?: unknown }[]) =>
      envelopes.filter((e) => e.kind === 'chat').map((e) => (e.payload as { text: string }).text);

    it('receives what was sent while it was away, before its new welcome, once and in order', async () => {
      const alice = client('alice');
      const bob = client('bob', { backoff: { minDelayMs: 150, maxDelayMs: 150 } });
      await Promise.all([alice.connect(), bob.connect()]);
      const cursorBefore = bob.cursor;
      expect(cursorBefore).toMatch(/^[0-9a-f]{8}-\d+$/);
      const seen = recordEvents(bob, 'message');
      const down = nextEvent(bob, 'status', (s) => s.status === 'disconnected');
      gw.gateway.spaces.get('room')!.participants.get('bob')!.links[0].connection.close(CLOSE_CODES.slow_consumer, 'dropped');
      await down;
      const sent = ['one', 'two', 'three'].map((text) => alice.send({ kind: 'chat', payload: { text } }));
      await nextEvent(alice, 'chat', (e) => e.id === sent[2].id);
      const catchUp = nextEvent(bob, 'catch-up');
      await nextEvent(bob, 'status', (s) => s.status === 'ready');
      expect(await catchUp).toMatchObject({ complete: true });
      alice.send({ kind: 'chat', payload: { text: 'live' } });
      await nextEvent(bob, 'chat', (e) => e.payload.text === 'live');
      expect(chatTexts(seen)).toEqual(['one', 'two', 'three', 'live']);
      const welcomeAt = seen.findIndex((e) => e.kind === 'system/welcome');
      expect(chatTexts(seen.slice(0, welcomeAt))).toEqual(['one', 'two', 'three']);
    });

    it('after a gateway restart, a message queued during it reaches a peer that reconnects after it was flushed', async () => {
      const history = new MemoryHistoryStore(); // what a data directory keeps across a real restart
      await gw.close();
      const first = createGatewayServer({ spaces: [parseSpaceConfig(config)], history });
      extraServers.push(first);
      const port = await first.listen(0, '127.0.0.1');
      const url = `ws://127.0.0.1:${port}/ws`;
      gw = await startTestGateway(config); // keeps afterEach's close() happy
      const alice = client('alice', { gateway: url, backoff: { minDelayMs: 20, maxDelayMs: 20 } });
      const bob = client('bob', { gateway: url, backoff: { minDelayMs: 600, maxDelayMs: 600 } });
      await Promise.all([alice.connect(), bob.connect()]);
      const bobChats = recordEvents(bob, 'chat');
      const aliceDown = nextEvent(alice, 'status', (s) => s.status === 'disconnected');
      await first.close();
      await aliceDown;
      const sent = alice.send({ kind: 'chat', payload: { text: 'queued during the restart' } });
      const second = createGatewayServer({ spaces: [parseSpaceConfig(config)], history });
      extraServers.push(second);
      await second.listen(port, '127.0.0.1');
      await nextEvent(alice, 'chat', (e) => e.id === sent.id, 5000); // flushed, and bob is not back yet
      expect(bob.status).not.toBe('ready');
      await nextEvent(bob, 'status', (s) => s.status === 'ready', 5000);
      expect(bobChats.map((e) => e.id)).toEqual([sent.id]);
    });

    it("'retained' asks for everything retained on the first connect; 'missed' and 'none' do not", async () => {
      const alice = client('alice');
      await alice.connect();
      alice.send({ kind: 'chat', payload: { text: 'earlier' } });
      await nextEvent(alice, 'chat');
      const dashboard = client('bob', { catchUp: 'retained' });
      const seen = recordEvents(dashboard, 'message');
      const catchUp = nextEvent(dashboard, 'catch-up');
      await dashboard.connect();
      expect(chatTexts(seen)).toEqual(['earlier']);
      expect(await catchUp).toEqual({ replayed: seen.length - 1, complete: true });
      dashboard.disconnect();

      const plain = client('bob');
      const plainSeen = recordEvents(plain, 'message');
      await plain.connect();
      expect(chatTexts(plainSeen)).toEqual([]);
    });
  });
  it('with coalesceMs, asks the gateway to coalesce and gets every routine envelope, in order, fewer frames than envelopes', async () => {
    const alice = client('alice');
    const transport = (() => {
      let frames = 0;
      const factory: TransportFactory = (request, handlers) =>
        createWebSocketTransport(request, { ...handlers, onMessage: (data) => (frames++, handlers.onMessage(data)) });
      return { factory, frames: () => frames };
    })();
    const bob = client('bob', { coalesceMs: 50, transport: transport.factory });
    await Promise.all([alice.connect(), bob.connect()]);
    const texts: string[] = [];
    const cursors: string[] = [];
    bob.on('chat', (env) => (texts.push(env.payload.text), cursors.push(env.cursor!)));
    const framesBefore = transport.frames();
    const sent = Array.from({ length: 100 }, (_, i) => alice.send({ kind: 'chat', payload: { text: `c${i}` } }));
    await vi.waitFor(() => expect(texts).toHaveLength(100));
    expect(texts).toEqual(sent.map((_, i) => `c${i}`));
    expect(transport.frames() - framesBefore).toBeLessThan(100);
    expect(bob.cursor).toBe(cursors.at(-1));
  });

  it('decodes a batch frame into its envelopes and stream frames, one event each, in order, the cursor advancing', async () => {
    const leaky = leakyTransport();
    const bob = client('bob', { transport: leaky.transport });
    await bob.connect();
    const events: string[] = [];
    bob.on('message', (env) => events.push(`${env.kind} ${env.cursor}`));
    bob.on('stream/data', ({ streamId, data }) => events.push(`#${streamId}#${data}`));
    const errors = recordEvents(bob, 'error');
    const chat = (cursor: string, text: string) => ({
      protocol: 'mew/v0.4',
      id: `id-${cursor}`,
      ts: new Date().toISOString(),
      from: 'alice',
      kind: 'chat',
      cursor,
      payload: { text },
    });
    leaky.inject(JSON.stringify([chat('e-1', 'one'), '#s1#token', chat('e-2', 'two'), 'not a frame', { kind: 'nonsense' }]));
    expect(events).toEqual(['chat e-1', '#s1#token', 'chat e-2']);
    expect(bob.cursor).toBe('e-2');
    expect(errors).toHaveLength(2);
  });
});
