import type { Envelope } from '../protocol';
import { CHAT_QUEUE_LIMIT } from './sdk-defaults';

/**
 * Chats addressed to me (named in `to`) that I have not acknowledged or cancelled yet, oldest first: the
 * "queue of chat messages awaiting acknowledgement" of spec §3.4.1. Bounded; the oldest drop out first.
 *
 * @example
 * const queue = new ChatQueue();
 * queue.add(chatEnvelope);
 * queue.remove(chatEnvelope.id); // the envelope, now out of the queue
 */
export class ChatQueue {
  private readonly chats = new Map<string, Envelope<'chat'>>();

  constructor(private readonly limit = CHAT_QUEUE_LIMIT) {}

  list(): Envelope<'chat'>[] {
    return [...this.chats.values()];
  }

  get(id: string): Envelope<'chat'> | undefined {
    return this.chats.get(id);
  }

  add(chat: Envelope<'chat'>): void {
    this.chats.set(chat.id, chat);
    if (this.chats.size > this.limit) this.chats.delete(this.chats.keys().next().value!);
  }

  remove(id: string): Envelope<'chat'> | undefined {
    const chat = this.chats.get(id);
    this.chats.delete(id);
    return chat;
  }
}
