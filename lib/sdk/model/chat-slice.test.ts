import { describe, expect, it } from 'vitest';
import { applyEnvelope, applyEnvelopes } from './apply-envelope';
import { answerRecipients } from './chat-slice';
import { awaitingMyAck, chatMessages, openQuestionsForMe, questionById } from './space-selectors';
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

describe('questions (chats marked question: true, as space__ask_human asks them)', () => {
  const ask = (id: string, from: string, text: string, to?: string[], at = 1) => env({ id, at, from, to, kind: 'chat', payload: { text, question: true } });
  const reply = (id: string, from: string, questionId: string, text: string, at = 5) =>
    env({ id, at, from, kind: 'chat', correlation_id: [questionId], payload: { text } });
  const cancel = (id: string, from: string, questionId: string, reason = 'timeout') =>
    env({ id, at: 9, from, kind: 'chat/cancel', correlation_id: [questionId], payload: { reason } });

  it('lists open questions for me, oldest first, and closes one on the first answer from someone other than its asker', () => {
    let s = run([welcome('human', ['coder']), ask('q-1', 'coder', 'Which branch?'), ask('q-2', 'coder', 'Deploy now?', undefined, 2)]);
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-1', 'q-2']);
    // The asker's own follow-up is no answer (its tool waits for someone else's).
    s = applyEnvelope(s, reply('r-0', 'coder', 'q-1', 'still there?'), NOW);
    expect(questionById(s, 'q-1')!.state).toBe('open');
    s = applyEnvelope(s, reply('r-1', 'reviewer', 'q-1', 'main'), NOW);
    expect(questionById(s, 'q-1')).toMatchObject({ state: 'answered', answer: { id: 'r-1', by: 'reviewer', text: 'main', at: T0 + 5 } });
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-2']);
    // A later answer does not replace the first.
    s = applyEnvelope(s, reply('r-2', 'human', 'q-1', 'release'), NOW);
    expect(questionById(s, 'q-1')!.answer!.by).toBe('reviewer');
  });

  it('withdraws a question on its asker’s chat/cancel; anyone else’s dismisses it for them alone', () => {
    let s = run([welcome('human', ['coder']), ask('q-1', 'coder', 'Which branch?'), ask('q-2', 'coder', 'Orphaned?', undefined, 2)]);
    s = applyEnvelope(s, cancel('x-1', 'bystander', 'q-1'), NOW);
    expect(questionById(s, 'q-1')).toMatchObject({ state: 'open', dismissedBy: ['bystander'] });
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-1', 'q-2']);
    // I dismiss one (its asker is gone and will never withdraw it): it is no longer offered to me.
    s = applyEnvelope(s, cancel('x-0', 'human', 'q-2', 'dismissed'), NOW);
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-1']);
    expect(questionById(s, 'q-2')!.state).toBe('open');
    s = applyEnvelope(s, cancel('x-2', 'coder', 'q-1', 'timeout'), NOW);
    expect(questionById(s, 'q-1')).toMatchObject({ state: 'withdrawn', withdrawn: { id: 'x-2', reason: 'timeout' } });
    expect(openQuestionsForMe(s)).toEqual([]);
  });

  it('offers me questions asked of everyone or of me, never my own; keeps them out of the acknowledgement queue', () => {
    const s = run([
      welcome('human', ['coder']),
      ask('q-all', 'coder', 'anyone?'),
      ask('q-me', 'coder', 'you?', ['human'], 2),
      ask('q-ops', 'coder', 'ops?', ['ops'], 3),
      ask('q-mine', 'human', 'mine?', undefined, 4),
    ]);
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-all', 'q-me']);
    expect(awaitingMyAck(s)).toEqual([]);
    expect(chatMessages(s).find((m) => m.id === 'q-me')!.question).toBe(true);
    expect(answerRecipients(questionById(s, 'q-all')!)).toBeUndefined();
    expect(answerRecipients(questionById(s, 'q-me')!)).toEqual(['coder', 'human']);
  });

  it('keeps an open question when the display list evicts its chat', () => {
    const envelopes = [welcome('human', ['coder']), ask('q-1', 'coder', 'Which branch?')];
    for (let i = 0; i < 5; i++) envelopes.push(chat(`b-${i}`, 'agent-1', undefined, `broadcast ${i}`, i + 2));
    const s = run(envelopes, { chatCap: 2 });
    expect(chatMessages(s).map((m) => m.id)).toEqual(['b-3', 'b-4']);
    expect(openQuestionsForMe(s).map((q) => q.message.id)).toEqual(['q-1']);
  });
});
