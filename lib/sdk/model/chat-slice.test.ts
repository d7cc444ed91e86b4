import { describe, expect, it } from 'vitest';
import { applyEnvelope, applyEnvelopes } from './apply-envelope';
import { awaitingMyAck, chatMessages } from './space-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { env, T0, welcome } from './testing';

const NOW = T0 + 1_000;

function run(envelopes: StoreEnvelope[], options = {}): SpaceState {
  return applyEnvelopes(createSpaceState(options, T0), envelopes, NOW);
}

const chat = (id: string, from: string, to: string[] | undefined, text: string, at = 0) =>
  env({ id, at, from, to, kind: 'chat', payload: { text, format: 'plain' } });

describe('chat and the acknowledgement queue (spec §3.4)', () => {
  it('lists every chat, and queues those addressed to me until I acknowledge them', () => {
    let s = run([
      welcome('human', ['agent-1']),
      chat('env-chat-1', 'user-alice', undefined, 'Hello everyone!', 1),
      chat('c-2', 'agent-1', ['human'], 'Please confirm the deploy window', 2),
      chat('c-3', 'agent-1', ['human', 'ops'], 'Disk at 91 %', 3),
      chat('c-4', 'agent-1', ['ops'], 'not for me', 4),
      chat('c-5', 'human', ['human'], 'note to self', 5),
    ]);
    expect(chatMessages(s).map((m) => m.id)).toEqual(['env-chat-1', 'c-2', 'c-3', 'c-4', 'c-5']);
    expect(awaitingMyAck(s).map((m) => m.id)).toEqual(['c-2', 'c-3']);
    // Someone else's acknowledgement does not clear my queue.
    s = applyEnvelope(s, env({ id: 'ack-ops', at: 6, from: 'ops', kind: 'chat/acknowledge', correlation_id: ['c-3'], payload: { status: 'read' } }), NOW);
    expect(awaitingMyAck(s).map((m) => m.id)).toEqual(['c-2', 'c-3']);
    s = applyEnvelope(
      s,
      env({ id: 'chat-ack-1', at: 7, from: 'human', kind: 'chat/acknowledge', correlation_id: ['c-2'], payload: { status: 'received' } }),
      NOW,
    );
    expect(awaitingMyAck(s).map((m) => m.id)).toEqual(['c-3']);
    expect(s.chat.receipts.get('c-3')!.acks).toEqual([{ id: 'ack-ops', by: 'ops', at: T0 + 6, status: 'read' }]);
  });

  it('drops a chat from my queue when its sender or I cancel it, not when a third party does', () => {
    let s = run([
      welcome('human', []),
      chat('c-1', 'agent-1', ['human'], 'first', 1),
      chat('c-2', 'agent-1', ['human'], 'second', 2),
      chat('c-3', 'agent-1', ['human'], 'third', 3),
    ]);
    const cancel = (id: string, from: string, chatId: string) =>
      env({ id, at: 10, from, to: ['human'], kind: 'chat/cancel', correlation_id: [chatId], payload: { reason: 'handled elsewhere' } });
    s = applyEnvelopes(s, [cancel('x-1', 'agent-1', 'c-1'), cancel('x-2', 'human', 'c-2'), cancel('x-3', 'bystander', 'c-3')], NOW);
    expect(awaitingMyAck(s).map((m) => m.id)).toEqual(['c-3']);
  });

  it('is empty until I know who I am, and stable between calls', () => {
    const s = run([chat('c-1', 'agent-1', ['human'], 'hi')]);
    expect(awaitingMyAck(s)).toEqual([]);
    const known = run([chat('c-1', 'agent-1', ['human'], 'hi')], { me: 'human' });
    expect(awaitingMyAck(known)).toHaveLength(1);
    expect(awaitingMyAck(known)).toBe(awaitingMyAck(known));
  });

  it('bounds the message list but keeps unacknowledged addressed chats', () => {
    const envelopes = [chat('for-me', 'agent-1', ['human'], 'ack me', 0)];
    for (let i = 0; i < 5; i++) envelopes.push(chat(`b-${i}`, 'agent-1', undefined, `broadcast ${i}`, i + 1));
    const s = run(envelopes, { me: 'human', chatCap: 3 });
    expect(chatMessages(s).map((m) => m.id)).toEqual(['b-2', 'b-3', 'b-4']);
    expect(s.chat.evicted).toBe(3);
    expect(awaitingMyAck(s).map((m) => m.id)).toEqual(['for-me']);
  });
});
