import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, TestClient, tokenOf, type Frame, type TestGateway } from './testing';

describe('gateway connection limits', () => {
  let gw: TestGateway;
  afterEach(() => gw.close());

  it('drops a peer that stops answering pings and tells the others it left', async () => {
    gw = await startTestGateway(spaceConfig('ping', { alice: ['chat'], bob: ['chat'] }, { limits: { ping_interval_ms: 100 } }));
    const alice = await joinAs(gw, tokenOf('alice'), 'space=ping');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=ping');
    // A peer whose socket no longer reads never sees the ping, so never pongs: like a half-open TCP connection.
    (bob.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const leave = await alice.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave', 2000);
    expect(leave.payload.participant.id).toBe('bob');
  });

  it('disconnects a consumer that cannot keep up instead of buffering without bound', async () => {
    gw = await startTestGateway(
      spaceConfig(
        'slow',
        { alice: ['chat'], bob: ['chat'], carol: ['chat'] },
        {
          limits: { max_buffered_bytes: 512 * 1024, rate_per_second: 10_000, rate_burst: 10_000 },
        },
      ),
    );
    const alice = await joinAs(gw, tokenOf('alice'), 'space=slow');
    const carol = await joinAs(gw, tokenOf('carol'), 'space=slow');
    const bob = new TestClient(new WebSocket(gw.wsUrl('space=slow'), { headers: { Authorization: `Bearer ${tokenOf('bob')}` } }));
    await bob.kind('system/welcome');
    (bob.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // 30 MB in paced batches: readers that keep up drain each batch; bob's kernel buffers fill, then its backlog passes the cap.
    const text = 'x'.repeat(32 * 1024);
    let left: Frame | undefined;
    void carol.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave', 20_000).then((f) => (left = f));
    for (let batch = 0; batch < 60 && !left; batch++) {
      for (let i = 0; i < 16; i++) alice.send({ kind: 'chat', payload: { text } });
      await new Promise((r) => setTimeout(r, 25));
    }
    await expect.poll(() => left?.payload.participant.id, { timeout: 5000 }).toBe('bob');
    // the others were never cut off
    alice.send({ kind: 'chat', payload: { text: 'still fine' } });
    await carol.next((f) => f.kind === 'chat' && f.payload.text === 'still fine', 10_000);
  });

  it('closes with 1009 a frame above the hard limit without buffering it', async () => {
    gw = await startTestGateway(spaceConfig('hard', { alice: ['chat'] }, { limits: { max_frame_bytes: 1024 } }));
    const alice = await joinAs(gw, tokenOf('alice'), 'space=hard');
    alice.send('x'.repeat(5000));
    expect((await alice.closed).code).toBe(1009);
  });
});
