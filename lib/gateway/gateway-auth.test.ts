import WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, TestClient, tokenOf, type TestGateway } from './testing';

const config = spaceConfig('auth', { alice: [{ kind: 'chat' }], bob: [{ kind: 'chat' }] }, { limits: { join_timeout_ms: 300 } });

describe('gateway authentication', () => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startTestGateway(config);
  });
  afterEach(() => gw.close());

  it('identifies a participant by its bearer header and welcomes it with its capabilities and who is present', async () => {
    await joinAs(gw, tokenOf('alice'), 'space=auth');
    const bob = new TestClient(new WebSocket(gw.wsUrl('space=auth'), { headers: { Authorization: `Bearer ${tokenOf('bob')}` } }));
    expect(await bob.kind('system/welcome')).toMatchObject({
      protocol: 'mew/v0.4',
      from: 'system:gateway',
      to: ['bob'],
      payload: { you: { id: 'bob', capabilities: [{ kind: 'chat' }] }, participants: [{ id: 'alice' }], active_streams: [] },
    });
  });

  it('accepts the token as a mew.bearer subprotocol and echoes a subprotocol that carries no token', async () => {
    const ws = new WebSocket(gw.wsUrl('space=auth'), ['mew.v0.4', `mew.bearer.${tokenOf('alice')}`]);
    const client = new TestClient(ws);
    await client.opened;
    expect(ws.protocol).toBe('mew.v0.4');
    expect((await client.kind('system/welcome')).payload.you.id).toBe('alice');
  });

  it('accepts the token as a query parameter', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl(`space=auth&token=${tokenOf('bob')}`)));
    expect((await client.kind('system/welcome')).payload.you.id).toBe('bob');
  });

  it('accepts the first-frame join of other MEW clients, in both of their shapes', async () => {
    const a = new TestClient(new WebSocket(gw.wsUrl('space=auth')));
    await a.opened;
    a.send({ type: 'join', space: 'auth', token: tokenOf('alice'), participantId: 'alice', capabilities: [] });
    expect((await a.kind('system/welcome')).payload.you.id).toBe('alice');

    const b = new TestClient(new WebSocket(gw.wsUrl()));
    await b.opened;
    b.send({ kind: 'system/join', payload: { space: 'auth', token: tokenOf('bob'), participant: 'bob' } });
    expect((await b.kind('system/welcome')).payload.you.id).toBe('bob');
  });

  it('refuses an unknown token at the upgrade with HTTP 401', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl('space=auth'), { headers: { Authorization: 'Bearer wrong-token-0000000000' } }));
    await expect(client.opened).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a wrong browser token (subprotocol or query) after the upgrade with system/error and 4401, which browsers can see', async () => {
    for (const client of [
      new TestClient(new WebSocket(gw.wsUrl('space=auth'), ['mew.v0.4', 'mew.bearer.wrong-token-0000000000'])),
      new TestClient(new WebSocket(gw.wsUrl('space=auth&token=wrong-token-0000000000'))),
    ]) {
      expect((await client.kind('system/error')).payload.error).toBe('invalid_token');
      expect((await client.closed).code).toBe(4401);
    }
  });

  it('refuses a first-frame join with a wrong token: system/error invalid_token, then close 4401', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl('space=auth')));
    await client.opened;
    client.send({ type: 'join', space: 'auth', token: 'not-a-real-token-000000' });
    expect((await client.kind('system/error')).payload.error).toBe('invalid_token');
    expect((await client.closed).code).toBe(4401);
  });

  it('refuses a join that claims another participant id than its token', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl('space=auth')));
    await client.opened;
    client.send({ type: 'join', space: 'auth', token: tokenOf('alice'), participantId: 'bob' });
    expect((await client.kind('system/error')).payload.error).toBe('identity_mismatch');
    expect((await client.closed).code).toBe(4401);
  });

  it('closes a connection that sends no token within the join timeout', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl('space=auth')));
    await client.opened;
    const closed = await client.closed;
    expect(closed.code).toBe(4408);
    expect(closed.reason).toMatch(/no valid token/);
  });

  it('lets an exclusive connection replace the older ones of the same participant instead of leaving them half-alive', async () => {
    const bob = await joinAs(gw, tokenOf('bob'), 'space=auth');
    const first = await joinAs(gw, tokenOf('alice'), 'space=auth');
    await bob.next((f) => f.kind === 'system/presence' && f.payload.event === 'join');
    const second = await joinAs(gw, tokenOf('alice'), 'space=auth&exclusive=1');
    expect((await first.closed).code).toBe(4409);
    second.send({ kind: 'chat', payload: { text: 'still here' } });
    expect((await bob.kind('chat')).from).toBe('alice');
    // the replacement is not a leave: nobody saw alice go
    expect(bob.received.some((f) => f.kind === 'system/presence' && f.payload.event === 'leave')).toBe(false);
  });

  it('refuses browser upgrades from a foreign Origin with 403 and allows the page’s own origin', async () => {
    const foreign = new TestClient(new WebSocket(gw.wsUrl(`space=auth&token=${tokenOf('alice')}`), { origin: 'https://evil.example' }));
    await expect(foreign.opened).rejects.toMatchObject({ status: 403 });
    const same = new TestClient(new WebSocket(gw.wsUrl(`space=auth&token=${tokenOf('alice')}`), { origin: `http://127.0.0.1:${gw.port}` }));
    await same.opened;
    expect((await same.kind('system/welcome')).payload.you.id).toBe('alice');
  });

  it('answers an unknown space with 404', async () => {
    const client = new TestClient(new WebSocket(gw.wsUrl(`space=nope&token=${tokenOf('alice')}`)));
    await expect(client.opened).rejects.toMatchObject({ status: 404 });
  });
});
