import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '../protocol';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const isPresence = (event: 'join' | 'leave', id: string) => (f: { kind?: string; payload?: { event?: string; participant?: { id?: string } } }) =>
  f.kind === 'system/presence' && f.payload?.event === event && f.payload.participant?.id === id;

describe('several connections per participant', () => {
  let gw: TestGateway;
  let bob: TestClient;
  const join = (id: string, query = '') => joinAs(gw, tokenOf(id), `space=multi${query}`);

  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig('multi', { alice: [{ kind: '*' }], bob: [{ kind: 'chat' }] }, { limits: { max_connections_per_participant: 3 } }));
    bob = await join('bob');
  });
  afterEach(() => gw.close());

  it('delivers to every connection, lets any act, and announces the participant once: join on the first, leave on the last', async () => {
    const desktop = await join('alice');
    await bob.next(isPresence('join', 'alice'));
    const phone = await join('alice');
    expect(phone.welcome!.payload.you.id).toBe('alice');
    phone.send({ kind: 'chat', payload: { text: 'from the phone' } });
    for (const client of [desktop, phone, bob]) expect((await client.next((f) => f.kind === 'chat')).payload.text).toBe('from the phone');
    desktop.send({ kind: 'chat', payload: { text: 'from the desktop' } });
    expect((await phone.next((f) => f.kind === 'chat')).payload.text).toBe('from the desktop');
    // The second connection's welcome went to it alone, and nobody saw a second join.
    expect(desktop.received.filter((f) => f.kind === 'system/welcome')).toHaveLength(0);
    expect(bob.received.filter(isPresence('join', 'alice'))).toHaveLength(0);

    desktop.close();
    await desktop.closed;
    phone.send({ kind: 'chat', payload: { text: 'still online' } });
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'still online');
    expect(bob.received.some(isPresence('leave', 'alice'))).toBe(false);
    expect(gw.gateway.spaces.get('multi')!.participants.get('alice')!.online).toBe(true);
    phone.close();
    await bob.next(isPresence('leave', 'alice'));
  });

  it('answers a refused frame on the connection that sent it only', async () => {
    const desktop = await join('bob');
    desktop.send({ id: 'bad-1', kind: 'mcp/request', payload: { method: 'tools/list' } });
    expect(await desktop.next((f) => f.kind === 'system/error')).toMatchObject({ correlation_id: ['bad-1'], payload: { error: 'capability_violation' } });
    bob.send({ kind: 'chat', payload: { text: 'after' } });
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'after');
    expect(bob.received.some((f) => f.kind === 'system/error')).toBe(false);
  });

  it('applies a pause and a kick to all of a participant’s connections', async () => {
    const lead = await join('alice');
    const other = await join('bob');
    lead.send({ kind: 'participant/pause', to: ['bob'], payload: {} });
    await bob.next((f) => f.kind === 'participant/pause');
    for (const client of [bob, other]) {
      client.send({ id: `paused-${client === bob ? 1 : 2}`, kind: 'chat', payload: { text: 'nope' } });
      expect((await client.next((f) => f.kind === 'system/error')).payload.error).toBe('participant_paused');
    }
    lead.send({ kind: 'space/kick', payload: { participant_id: 'bob' } });
    expect((await bob.closed).code).toBe(CLOSE_CODES.kicked);
    expect((await other.closed).code).toBe(CLOSE_CODES.kicked);
    await lead.next(isPresence('leave', 'bob'));
    expect(gw.gateway.spaces.get('multi')!.participants.get('bob')!.online).toBe(false);
  });

  it('closes the oldest beyond the limit, and an exclusive connection replaces all the others (4409)', async () => {
    const [one, two, three] = [await join('alice'), await join('alice'), await join('alice')];
    const four = await join('alice');
    expect((await one.closed).code).toBe(CLOSE_CODES.replaced);
    const exclusive = await join('alice', '&exclusive=1');
    for (const client of [two, three, four]) expect((await client.closed).code).toBe(CLOSE_CODES.replaced);
    expect(gw.gateway.spaces.get('multi')!.participants.get('alice')!.links).toHaveLength(1);
    exclusive.send({ kind: 'chat', payload: { text: 'alone now' } });
    await bob.next((f) => f.kind === 'chat' && f.payload.text === 'alone now');
    // Replacements are not leaves: alice never went away.
    expect(bob.received.some(isPresence('leave', 'alice'))).toBe(false);
  });
});
