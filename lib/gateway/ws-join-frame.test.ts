import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BEARER_SUBPROTOCOL_PREFIX, MEW_SUBPROTOCOL } from '../protocol';
import { joinAs, spaceConfig, startTestGateway, tokenOf, TestClient, type TestGateway } from './testing';

describe('the WebSocket transport and join frames', () => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig('room', { alice: ['chat'], bob: ['chat'] }));
  });
  afterEach(() => gw.close());

  it('drops a join frame on a connection that already joined: nothing is stored, echoed or refused', async () => {
    const alice = await joinAs(gw, tokenOf('alice'), 'space=room');
    const bob = await joinAs(gw, tokenOf('bob'), 'space=room');
    alice.send({ type: 'join', space: 'room', token: tokenOf('alice'), participantId: 'alice' });
    alice.send({ kind: 'system/join', payload: { space: 'room', token: tokenOf('alice'), participant: 'alice' } });
    alice.send({ kind: 'chat', payload: { text: 'after the late join frames' } });
    // Frames are handled in order: by the chat's echo, the join frames would have been answered.
    const notPresence = (f: { kind?: string }) => f.kind !== 'system/presence';
    expect((await alice.next(notPresence)).payload.text).toBe('after the late join frames');
    expect((await bob.next(notPresence)).payload.text).toBe('after the late join frames');
    expect([...alice.received, ...bob.received].filter(notPresence)).toEqual([]);

    const late = await joinAs(gw, tokenOf('bob'), 'space=room&after=0');
    const retained = late.received.splice(0);
    expect(retained.filter((f) => f.kind !== 'system/presence').map((f) => f.kind)).toEqual(['chat']);
    expect(JSON.stringify(retained)).not.toContain(tokenOf('alice'));
  });

  it('still joins by a first join frame, and treats join-shaped text after it as a join only when it is one', async () => {
    const alice = new TestClient(new WebSocket(gw.wsUrl('space=room')));
    await alice.opened;
    alice.send({ type: 'join', space: 'room', token: tokenOf('alice') });
    await alice.kind('system/welcome');
    alice.send({ kind: 'chat', payload: { text: 'let us "join" forces' } });
    expect((await alice.kind('chat')).payload.text).toBe('let us "join" forces');
  });

  it('selects the MEW subprotocol over any other offered, the SDK’s join-frame probe included', async () => {
    const offered = ['mew.join-frame', MEW_SUBPROTOCOL, `${BEARER_SUBPROTOCOL_PREFIX}${tokenOf('alice')}`];
    const ws = new WebSocket(gw.wsUrl('space=room'), offered);
    const client = new TestClient(ws);
    await client.opened;
    expect(ws.protocol).toBe(MEW_SUBPROTOCOL);
    await client.kind('system/welcome');
    client.close();
  });
});
