import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { nextEvent, participantFactory } from './testing';

const config = spaceConfig('chat', {
  alice: [{ kind: 'chat' }, { kind: 'chat/*' }],
  bob: [{ kind: 'chat' }, { kind: 'chat/*' }],
  carol: [{ kind: 'chat' }, { kind: 'chat/*' }],
});

describe('MEWParticipant chat and acknowledgements', () => {
  let gw: TestGateway;
  let alice: MEWParticipant;
  let bob: TestClient;
  let carol: TestClient;
  const participants = participantFactory('chat', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    alice = await participants.connect('alice');
    bob = await joinAs(gw, tokenOf('bob'), 'space=chat');
    carol = await joinAs(gw, tokenOf('carol'), 'space=chat');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  /** Bob sends a chat and waits until alice has seen it. */
  async function fromBob(id: string, to?: string[]) {
    bob.send({ id, kind: 'chat', ...(to && { to }), payload: { text: id } });
    await nextEvent(alice.client, 'chat', (e) => e.id === id);
  }

  it('queues only the chats addressed to me, oldest first', async () => {
    await fromBob('for-all');
    await fromBob('for-carol', ['carol']);
    await fromBob('for-me', ['alice']);
    await fromBob('for-me-too', ['alice', 'carol']);
    expect(alice.chat.pending().map((c) => c.id)).toEqual(['for-me', 'for-me-too']);
  });

  it('acknowledges a chat to its sender and takes it off the queue', async () => {
    const changes = nextEvent(alice, 'chat-queue', (q) => q.length === 0);
    await fromBob('question', ['alice']);
    alice.chat.acknowledge('question', 'read');
    expect(await bob.kind('chat/acknowledge')).toMatchObject({ from: 'alice', to: ['bob'], correlation_id: ['question'], payload: { status: 'read' } });
    await changes;
    expect(alice.chat.pending()).toEqual([]);
  });

  it('cancels a chat with a reason', async () => {
    await fromBob('task', ['alice']);
    alice.chat.cancel('task', 'handled_elsewhere');
    expect(await bob.kind('chat/cancel')).toMatchObject({ to: ['bob'], correlation_id: ['task'], payload: { reason: 'handled_elsewhere' } });
    expect(alice.chat.pending()).toEqual([]);
  });

  it('drops a chat its sender cancels, but not on a cancel from anyone else', async () => {
    await fromBob('stale', ['alice']);
    carol.send({ id: 'c1', kind: 'chat/cancel', to: ['alice'], correlation_id: ['stale'], payload: {} });
    await nextEvent(alice.client, 'chat/cancel', (e) => e.id === 'c1');
    expect(alice.chat.pending().map((c) => c.id)).toEqual(['stale']);
    bob.send({ id: 'c2', kind: 'chat/cancel', to: ['alice'], correlation_id: ['stale'], payload: { reason: 'never mind' } });
    await nextEvent(alice.client, 'chat/cancel', (e) => e.id === 'c2');
    expect(alice.chat.pending()).toEqual([]);
  });

  it('sends chats to everyone or to the named participants', async () => {
    alice.chat.send('hello all');
    expect((await bob.kind('chat')).payload).toEqual({ text: 'hello all' });
    const sent = alice.chat.send('**just you**', 'bob', { format: 'markdown', correlationId: ['x'] });
    expect(await bob.kind('chat')).toMatchObject({ id: sent.id, to: ['bob'], correlation_id: ['x'], payload: { text: '**just you**', format: 'markdown' } });
  });
});
