import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type ServerOptions } from 'ws';
import { BEARER_SUBPROTOCOL_PREFIX, MEW_SUBPROTOCOL } from '../protocol';
import { spaceConfig, startTestGateway, tokenOf } from '../gateway/testing';
import { JOIN_FRAME_FALLBACK_MS } from './sdk-defaults';
import { nextEvent, recordEvents, testCleanups } from './testing';
import { JOIN_FRAME_SUBPROTOCOL } from '../protocol';
import { createWebSocketTransport, type TransportFactory } from './transport';

const TOKEN = 'handshake-token-0123456789';
const WELCOME_DELAY_MS = 5_000;

/**
 * A gateway that reads the upgrade's token but is slow to welcome (`welcomeAfterMs`), or one that waits for a join
 * frame (`welcomeAfterMs` undefined). `handleProtocols` decides which subprotocol it selects (ws's default: the
 * first offered). Records the subprotocol selected and every frame received.
 */
async function gateway(options: { welcomeAfterMs?: number; handleProtocols?: ServerOptions['handleProtocols'] }) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...(options.handleProtocols && { handleProtocols: options.handleProtocols }) });
  await once(wss, 'listening');
  const frames: Record<string, unknown>[] = [];
  const selected: string[] = [];
  wss.on('connection', (ws) => {
    selected.push(ws.protocol);
    const welcome = () =>
      ws.send(
        JSON.stringify({
          protocol: 'mew/v0.4',
          id: randomUUID(),
          ts: new Date().toISOString(),
          from: 'system:gateway',
          to: ['alice'],
          kind: 'system/welcome',
          payload: { you: { id: 'alice', capabilities: [] }, participants: [] },
        }),
      );
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      frames.push(frame);
      if (options.welcomeAfterMs === undefined && frame.type === 'join' && frame.token === TOKEN) welcome();
    });
    if (options.welcomeAfterMs !== undefined) setTimeout(welcome, options.welcomeAfterMs);
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`,
    frames,
    selected,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

const isJoin = (frame: Record<string, unknown>) => frame.type === 'join';

describe('MEWClient sends the join frame only to a gateway that did not take part in the MEW handshake', () => {
  const cleanups = testCleanups();
  const { client } = cleanups;
  afterEach(async () => {
    vi.useRealTimers();
    await cleanups.run();
  });

  async function start(options: Parameters<typeof gateway>[0]) {
    const gw = await gateway(options);
    cleanups.push(gw.close);
    return gw;
  }

  const fakeTimers = () => vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });

  it.each([
    ['mew.v0.4', () => MEW_SUBPROTOCOL],
    ['a mew.bearer.* subprotocol', (offered: Set<string>) => [...offered].find((p) => p.startsWith(BEARER_SUBPROTOCOL_PREFIX))!],
  ])('waits as long as the welcome takes once the gateway selected %s', async (_, select) => {
    fakeTimers();
    const gw = await start({ welcomeAfterMs: WELCOME_DELAY_MS, handleProtocols: select });
    const alice = client({ gateway: gw.url, space: 'room', token: TOKEN, participantId: 'alice' });
    const ready = alice.connect();
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    await vi.advanceTimersByTimeAsync(WELCOME_DELAY_MS);
    await ready;
    expect(gw.frames.filter(isJoin)).toEqual([]);
    expect(gw.selected[0]).not.toBe(JOIN_FRAME_SUBPROTOCOL);
  });

  it('against our gateway, a welcome delayed by seconds brings no join frame and no error', async () => {
    fakeTimers();
    const ours = await startTestGateway(spaceConfig('room', { alice: ['chat'] }));
    cleanups.push(() => ours.close());
    const sent: string[] = [];
    // A loaded gateway: everything it sends reaches the client seconds late.
    const slow: TransportFactory = (request, handlers) => {
      const real = createWebSocketTransport(request, { ...handlers, onMessage: (data) => void setTimeout(() => handlers.onMessage(data), WELCOME_DELAY_MS) });
      return { ...real, send: (data) => (sent.push(String(data)), real.send(data)) };
    };
    const alice = client({ gateway: ours.wsUrl(), space: 'room', token: tokenOf('alice'), transport: slow });
    const errors = recordEvents(alice, 'system/error');
    const ready = alice.connect();
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    await vi.advanceTimersByTimeAsync(WELCOME_DELAY_MS);
    await ready;
    expect(sent).toEqual([]);
    alice.send({ kind: 'chat', payload: { text: 'hi' } });
    await vi.advanceTimersByTimeAsync(WELCOME_DELAY_MS);
    await expect.poll(() => sent.length).toBe(1);
    expect(errors).toEqual([]);
  });

  it('sends it after JOIN_FRAME_FALLBACK_MS of silence to a server that just echoes the first subprotocol offered', async () => {
    fakeTimers();
    const gw = await start({}); // ws's default choice, as the reference gateway makes it
    const alice = client({ gateway: gw.url, space: 'room', token: TOKEN, participantId: 'alice' });
    const ready = alice.connect();
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    expect(gw.frames).toEqual([]);
    await vi.advanceTimersByTimeAsync(JOIN_FRAME_FALLBACK_MS);
    await ready;
    expect(gw.selected).toEqual([JOIN_FRAME_SUBPROTOCOL]);
    expect(gw.frames).toEqual([{ type: 'join', space: 'room', token: TOKEN, participantId: 'alice' }]);
  });

  it('joins a gateway that selects no subprotocol at all (offering none the second time), by the join frame', async () => {
    fakeTimers();
    const gw = await start({ handleProtocols: () => false });
    const alice = client({ gateway: gw.url, space: 'room', token: TOKEN, participantId: 'alice' });
    const statuses = recordEvents(alice, 'status');
    const ready = alice.connect();
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    await vi.advanceTimersByTimeAsync(JOIN_FRAME_FALLBACK_MS);
    await ready;
    expect(gw.selected).toEqual(['', '']); // the failed handshake, then the one that offered nothing
    expect(statuses.map((s) => s.status)).toEqual(['connecting', 'connected', 'ready']);
    expect(gw.frames.filter(isJoin)).toHaveLength(1);
  });
});
