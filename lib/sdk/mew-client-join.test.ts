import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { spaceConfig, startTestGateway, tokenOf } from '../gateway/testing';
import { JOIN_FRAME_FALLBACK_MS } from './sdk-defaults';
import { nextEvent, recordEvents, testCleanups } from './testing';
import { createWebSocketTransport, type TransportFactory, type TransportRequest } from './transport';

const TOKEN = 'ref-token-0123456789';

/**
 * A gateway of the reference implementation's kind, as small as it gets: it takes the token only from a first-frame
 * join `{"type":"join", space, token, participantId}`, sends nothing before it, then welcomes in our v0.4 shape and
 * echoes envelopes back.
 */
async function startJoinFrameGateway() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  const joins: Record<string, unknown>[] = [];
  const authorization: (string | undefined)[] = [];
  wss.on('connection', (ws, request) => {
    authorization.push(request.headers.authorization);
    ws.once('message', (data) => {
      const join = JSON.parse(String(data)) as Record<string, unknown>;
      joins.push(join);
      if (join.type !== 'join' || join.token !== TOKEN) return ws.close(4401, 'join first');
      const id = String(join.participantId);
      const envelope = (kind: string, payload: unknown, extra: object = {}) =>
        JSON.stringify({ protocol: 'mew/v0.4', id: randomUUID(), ts: new Date().toISOString(), from: 'system:gateway', kind, payload, ...extra });
      ws.send(envelope('system/welcome', { you: { id, capabilities: [{ kind: 'chat' }] }, participants: [] }, { to: [id] }));
      ws.on('message', (frame) => ws.send(JSON.stringify({ ...JSON.parse(String(frame)), from: id, ts: new Date().toISOString() })));
    });
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    joins,
    authorization,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** The default transport, recording what each connection was opened with and every frame sent. */
function recording(requests: TransportRequest[], sent: string[]): TransportFactory {
  return (request, handlers) => {
    requests.push(request);
    const transport = createWebSocketTransport(request, handlers);
    return { ...transport, send: (data) => (sent.push(String(data)), transport.send(data)) };
  };
}

const isJoinFrame = (frame: string) => (JSON.parse(frame) as { type?: string }).type === 'join';

describe('MEWClient joining gateways that want a join frame, and ours', () => {
  const cleanups = testCleanups();
  const { client } = cleanups;
  afterEach(async () => {
    vi.useRealTimers();
    await cleanups.run();
  });

  async function referenceGateway() {
    const gateway = await startJoinFrameGateway();
    cleanups.push(gateway.close);
    return gateway;
  }

  it("'auto' (the default) authenticates on the upgrade, then sends the join frame when no welcome comes", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const gateway = await referenceGateway();
    const sent: string[] = [];
    const alice = client({ gateway: gateway.url, space: 'room', token: TOKEN, participantId: 'alice', transport: recording([], sent) });
    const ready = alice.connect();
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    expect(sent).toEqual([]); // it waits for a welcome first
    await vi.advanceTimersByTimeAsync(JOIN_FRAME_FALLBACK_MS);
    await ready;
    expect(gateway.authorization).toEqual([`Bearer ${TOKEN}`]);
    expect(gateway.joins).toEqual([{ type: 'join', space: 'room', token: TOKEN, participantId: 'alice' }]);
    expect(alice.participantId).toBe('alice');
    const echo = nextEvent(alice, 'chat');
    alice.send({ kind: 'chat', payload: { text: 'hello from the SDK' } });
    expect((await echo).payload.text).toBe('hello from the SDK');
  });

  it("'join-frame' joins at once and puts the token nowhere else", async () => {
    const gateway = await referenceGateway();
    const requests: TransportRequest[] = [];
    const alice = client({ gateway: gateway.url, space: 'room', token: TOKEN, participantId: 'alice', join: 'join-frame', transport: recording(requests, []) });
    const started = Date.now();
    await alice.connect();
    expect(Date.now() - started).toBeLessThan(JOIN_FRAME_FALLBACK_MS);
    expect(requests.map((r) => r.token)).toEqual([undefined]);
    expect(gateway.authorization).toEqual([undefined]);
    expect(gateway.joins).toHaveLength(1);
  });

  it("'auth-header' never sends a join frame", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const gateway = await referenceGateway();
    const sent: string[] = [];
    const alice = client({ gateway: gateway.url, space: 'room', token: TOKEN, join: 'auth-header', transport: recording([], sent) });
    void alice.connect().catch(() => undefined);
    await nextEvent(alice, 'status', (s) => s.status === 'connected');
    await vi.advanceTimersByTimeAsync(JOIN_FRAME_FALLBACK_MS * 2);
    expect(sent).toEqual([]);
    expect(alice.status).toBe('connected');
  });

  describe('against our gateway', () => {
    async function ours() {
      const gw = await startTestGateway(spaceConfig('room', { alice: ['chat'] }));
      cleanups.push(() => gw.close());
      return gw;
    }

    it("'auto' is welcomed on the upgrade's token and never sends the join frame", async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      const gw = await ours();
      const sent: string[] = [];
      const alice = client({ gateway: gw.wsUrl(), space: 'room', token: tokenOf('alice'), transport: recording([], sent) });
      const errors = recordEvents(alice, 'system/error');
      await alice.connect();
      await vi.advanceTimersByTimeAsync(JOIN_FRAME_FALLBACK_MS * 2);
      expect(sent.filter(isJoinFrame)).toEqual([]);
      expect(errors).toEqual([]);
    });

    it("'join-frame' is welcomed too (our gateway takes first-frame joins)", async () => {
      const gw = await ours();
      const requests: TransportRequest[] = [];
      const sent: string[] = [];
      const alice = client({ gateway: gw.wsUrl(), space: 'room', token: tokenOf('alice'), join: 'join-frame', transport: recording(requests, sent) });
      await alice.connect();
      expect(alice.participantId).toBe('alice');
      expect(requests.map((r) => r.token)).toEqual([undefined]);
      expect(sent.map((frame) => JSON.parse(frame))).toEqual([{ type: 'join', space: 'room', token: tokenOf('alice') }]);
    });
  });
});
