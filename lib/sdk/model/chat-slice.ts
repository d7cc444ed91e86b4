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
  /** A question its sender waits on (`payload.question: true`): answered by a chat correlated to it. */
  question?: true;
}

/**
 * A question (a chat marked `question: true`, as `space__ask_human` sends one) and what became of it: `answered` by the
 * first chat correlated to it from someone other than its asker (as the asker's tool reads it), `withdrawn` by its
 * asker's `chat/cancel` (the tool gave up waiting, or its call was cancelled). A third party's cancel dismisses it for
 * that participant alone (`dismissedBy`): the asker still waits, and the others may still answer.
 */
export interface ChatQuestion {
  message: ChatMessage;
  state: 'open' | 'answered' | 'withdrawn';
  answer?: { id: string; by: string; text: string; at: number };
  withdrawn?: { id: string; at: number; reason?: string };
  /** Who dismissed it for themselves (a `chat/cancel` of theirs): it is no longer offered to them. */
  dismissedBy?: readonly string[];
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
  /** Questions by chat id, kept apart from the display list so an open one is not lost to eviction. */
  questions: ReadonlyMap<string, ChatQuestion>;
  /** Incremented when `questions` change (the open-question selectors' memoisation key). */
  questionVersion: number;
}

/**
 * A fresh chat slice: `chatCap` messages, `addressedChatCap` addressed chats, receipts for as many as both, and as many
 * questions as addressed chats (the oldest forgotten first).
 */
export function initialChat(config: { chatCap: number; addressedChatCap: number }): ChatState {
  // Receipts are bounded like the chats themselves (acks may name chats never seen, or long gone).
  const receipts = new BoundedMap<string, ChatReceipt>(config.chatCap + config.addressedChatCap);
  const addressed = new BoundedMap<string, ChatMessage>(config.addressedChatCap, (id) => receipts.delete(id));
  const questions = new BoundedMap<string, ChatQuestion>(config.addressedChatCap);
  return { messages: new RingBuffer<ChatMessage>(config.chatCap), evicted: 0, addressed, receipts, ackVersion: 0, questions, questionVersion: 0 };
}

const EMPTY_RECEIPT: ChatReceipt = { acks: [], cancels: [] };

/** Applies `chat`, `chat/acknowledge` and `chat/cancel`. */
export function reduceChat(state: ChatState, envelope: StoreEnvelope, ctx: ReduceContext): ChatState {
  const receipts = writable(state.receipts);
  switch (envelope.kind) {
    case 'chat': {
      const { text, format, question } = envelope.payload;
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
        ...(question === true && { question: true as const }),
      };
      const evicted = state.messages.push(message);
      if (evicted && !state.addressed.has(evicted.id)) receipts.delete(evicted.id);
      const addressedChat = envelope.to !== undefined && envelope.to.length > 0;
      if (addressedChat) writable(state.addressed).set(envelope.id, message);
      const questionsChanged = trackQuestions(state, message);
      return {
        ...state,
        evicted: state.messages.evicted,
        ackVersion: addressedChat ? state.ackVersion + 1 : state.ackVersion,
        questionVersion: questionsChanged ? state.questionVersion + 1 : state.questionVersion,
      };
    }
    case 'chat/acknowledge': {
      const ack = { id: envelope.id, by: envelope.from, at: ctx.at, status: envelope.payload?.status };
      return addReceipts(state, envelope, (receipt) => ({ ...receipt, acks: [...receipt.acks, ack] }));
    }
    case 'chat/cancel': {
      const cancel = { id: envelope.id, by: envelope.from, at: ctx.at, reason: envelope.payload?.reason };
      const next = addReceipts(state, envelope, (receipt) => ({ ...receipt, cancels: [...receipt.cancels, cancel] }));
      return withdrawQuestions(next, cancel, correlationIds(envelope));
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

/** Records a new question, or answers the open questions a chat names (not its asker's own). True when any changed. */
function trackQuestions(state: ChatState, message: ChatMessage): boolean {
  const questions = writable(state.questions);
  let changed = false;
  if (message.question) {
    questions.set(message.id, { message, state: 'open' });
    changed = true;
  }
  for (const id of message.correlationIds) {
    const question = questions.get(id);
    if (question?.state !== 'open' || question.message.from === message.from) continue;
    questions.set(id, { ...question, state: 'answered', answer: { id: message.id, by: message.from, text: message.text, at: message.at } });
    changed = true;
  }
  return changed;
}

/** Withdraws the open questions a `chat/cancel` names when their asker sent it; anyone else's dismisses them for it. */
function withdrawQuestions(state: ChatState, cancel: { id: string; by: string; at: number; reason?: string }, ids: readonly string[]): ChatState {
  const questions = writable(state.questions);
  let changed = false;
  for (const id of ids) {
    const question = questions.get(id);
    if (question?.state !== 'open') continue;
    if (question.message.from !== cancel.by) {
      if (question.dismissedBy?.includes(cancel.by)) continue;
      questions.set(id, { ...question, dismissedBy: [...(question.dismissedBy ?? []), cancel.by] });
      changed = true;
      continue;
    }
    questions.set(id, {
      ...question,
      state: 'withdrawn',
      withdrawn: { id: cancel.id, at: cancel.at, ...(cancel.reason !== undefined && { reason: cancel.reason }) },
    });
    changed = true;
  }
  return changed ? { ...state, questionVersion: state.questionVersion + 1 } : state;
}

/**
 * Whether I may answer `question`: it is still open, someone else asked it, of everyone or of me, and I did not
 * dismiss it.
 */
export function mayAnswer(question: ChatQuestion, me: string | undefined): boolean {
  const { message } = question;
  if (question.state !== 'open' || me === undefined || message.from === me || question.dismissedBy?.includes(me)) return false;
  return message.to === undefined || message.to.length === 0 || message.to.includes(me);
}

/** Who an answer goes to: everyone for a question to everyone, else its asker and those it was asked of (so they see it answered). */
export function answerRecipients(question: ChatQuestion): string[] | undefined {
  const { from, to } = question.message;
  return to && to.length > 0 ? [...new Set([from, ...to])] : undefined;
}

/**
 * Whether `message` still awaits my acknowledgement: it is no question, it names me in `to`, I did not send it, I have not
 * acknowledged it, and neither its sender nor I cancelled it (a third party's cancel does not clear my queue).
 */
export function awaitsAckFrom(message: ChatMessage, receipt: ChatReceipt | undefined, me: string): boolean {
  // A question is answered, not acknowledged: it waits in the open questions, with its reply box.
  if (message.question || message.from === me || !message.to?.includes(me)) return false;
  if (!receipt) return true;
  if (receipt.acks.some((a) => a.by === me)) return false;
  return !receipt.cancels.some((c) => c.by === me || c.by === message.from);
}
