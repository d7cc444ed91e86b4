import { BoundedMap } from '../../collections/bounded-map';
import { writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { RingBuffer } from '../../collections/ring-buffer';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/** A `chat` message (spec §3.4). */
export interface ChatMessage {
  id: string;
  seq: number;
  from: string;
  /** Addressees; absent or empty = broadcast. */
  to?: readonly string[];
  text: string;
  format: 'plain' | 'markdown';
  at: number;
  context?: string;
  correlationIds: readonly string[];
}

/** Acknowledgements and cancellations a chat received (spec §3.4.1–3.4.2). */
export interface ChatReceipt {
  acks: readonly { id: string; by: string; at: number; status?: string }[];
  cancels: readonly { id: string; by: string; at: number; reason?: string }[];
}

/** Chat: the bounded message list plus what the acknowledgement queue needs. */
export interface ChatState {
  /** Oldest first; pushes are O(1), read with `toArray()`. */
  messages: RingBuffer<ChatMessage>;
  /** Messages evicted from `messages`. */
  evicted: number;
  /** Chats with addressees, kept apart from the display list so an unacknowledged one is not lost to eviction. */
  addressed: ReadonlyMap<string, ChatMessage>;
  /** Receipts by chat id. */
  receipts: ReadonlyMap<string, ChatReceipt>;
  /** Incremented when `addressed` or `receipts` change (the acknowledgement queue's memoisation key). */
  ackVersion: number;
}

/** A fresh chat slice: `chatCap` messages, `addressedChatCap` addressed chats, receipts for as many as both. */
export function initialChat(config: { chatCap: number; addressedChatCap: number }): ChatState {
  // Receipts are bounded like the chats themselves (acks may name chats never seen, or long gone).
  const receipts = new BoundedMap<string, ChatReceipt>(config.chatCap + config.addressedChatCap);
  const addressed = new BoundedMap<string, ChatMessage>(config.addressedChatCap, (id) => receipts.delete(id));
  return { messages: new RingBuffer<ChatMessage>(config.chatCap), evicted: 0, addressed, receipts, ackVersion: 0 };
}

const EMPTY_RECEIPT: ChatReceipt = { acks: [], cancels: [] };

/** Applies `chat`, `chat/acknowledge` and `chat/cancel`. */
export function reduceChat(state: ChatState, envelope: StoreEnvelope, ctx: ReduceContext): ChatState {
  const receipts = writable(state.receipts);
  switch (envelope.kind) {
    case 'chat': {
      const { text, format } = envelope.payload;
      const message: ChatMessage = {
        id: envelope.id,
        seq: ctx.seq,
        from: envelope.from,
        to: envelope.to,
        text,
        format: format === 'markdown' ? 'markdown' : 'plain',
        at: ctx.at,
        context: envelope.context,
        correlationIds: correlationIds(envelope),
      };
      const evicted = state.messages.push(message);
      if (evicted && !state.addressed.has(evicted.id)) receipts.delete(evicted.id);
      const addressedChat = envelope.to !== undefined && envelope.to.length > 0;
      if (addressedChat) writable(state.addressed).set(envelope.id, message);
      return { ...state, evicted: state.messages.evicted, ackVersion: addressedChat ? state.ackVersion + 1 : state.ackVersion };
    }
    case 'chat/acknowledge': {
      const ack = { id: envelope.id, by: envelope.from, at: ctx.at, status: envelope.payload?.status };
      return addReceipts(state, envelope, (receipt) => ({ ...receipt, acks: [...receipt.acks, ack] }));
    }
    case 'chat/cancel': {
      const cancel = { id: envelope.id, by: envelope.from, at: ctx.at, reason: envelope.payload?.reason };
      return addReceipts(state, envelope, (receipt) => ({ ...receipt, cancels: [...receipt.cancels, cancel] }));
    }
    default:
      return state;
  }
}

/** Adds a receipt to every chat the envelope correlates to. */
function addReceipts(state: ChatState, envelope: StoreEnvelope, add: (receipt: ChatReceipt) => ChatReceipt): ChatState {
  const ids = correlationIds(envelope);
  if (ids.length === 0) return state;
  const receipts = writable(state.receipts);
  for (const chatId of ids) receipts.set(chatId, add(receipts.get(chatId) ?? EMPTY_RECEIPT));
  return { ...state, ackVersion: state.ackVersion + 1 };
}

/**
 * Whether `message` still awaits my acknowledgement: it names me in `to`, I did not send it, I have not
 * acknowledged it, and neither its sender nor I cancelled it (a third party's cancel does not clear my queue).
 */
export function awaitsAckFrom(message: ChatMessage, receipt: ChatReceipt | undefined, me: string): boolean {
  if (message.from === me || !message.to?.includes(me)) return false;
  if (!receipt) return true;
  if (receipt.acks.some((a) => a.by === me)) return false;
  return !receipt.cancels.some((c) => c.by === me || c.by === message.from);
}
