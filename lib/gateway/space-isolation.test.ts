import WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, TestClient, tokenOf, type TestGateway } from './testing';

describe('space isolation', () => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig('red', { alice: ['chat'] }), spaceConfig('blue', { bob: ['chat', 'mcp/*'] }));
  });
  afterEach(() => gw.close());

  it('does not accept one space’s token in another', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl('space=blue'), { headers: { Authorization: `Bearer ${tokenOf('alice')}` } }));
    await expect(client.opened).rejects.toMatchObject({ status: 401 });
  });

  it('keeps envelopes, presence and history inside their space', async () => {
    const alice = await joinAs(gw, tokenOf('alice'), 'space=red');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=blue');
    bob.send({ kind: 'chat', payload: { text: 'blue only' } });
    await bob.kind('chat');
    alice.send({ kind: 'chat', payload: { text: 'red only' } });
    await alice.kind('chat');
    expect(alice.received.filter((f) => f.kind !== 'system/welcome')).toEqual([]);
    expect(bob.received).toEqual([]);
    const res = await fetch(gw.httpUrl('/participants/alice/messages?space=red'), { headers: { Authorization: `Bearer ${tokenOf('alice')}` } });
    const texts = (await res.json()).messages.filter((m: { kind: string }) => m.kind === 'chat').map((m: { payload: { text: string } }) => m.payload.text);
    expect(texts).toEqual(['red only']);
  });

  it('uses each space’s own capabilities for the same kind', async () => {
    const alice = await joinAs(gw, tokenOf('alice'), 'space=red');
    alice.send({ kind: 'mcp/request', payload: { method: 'tools/list' } });
    expect((await alice.kind('system/error')).payload.error).toBe('capability_violation');
  });
});
