import { BoundedMap } from '../collections/bounded-map';
import type { AnyEnvelope } from '../protocol';
import { awaitsAckFrom, initialChat, reduceChat, type ChatMessage, type ChatState } from './model/chat-slice';
import type { ReduceContext } from './model/reduce-context';
import { resolveStoreConfig, type StoreConfig } from './model/store-defaults';
import { envelopeTime } from './model/store-envelope';

/** Receipts of mine awaiting their echo; far more than one participant acknowledges between two echoes. */
const APPLIED_EARLY_CAP = 1000;

/** The chat kinds that can change what awaits my acknowledgement. */
const CHAT_KINDS: ReadonlySet<string> = new Set(['chat', 'chat/acknowledge', 'chat/cancel']);

/**
 * Chats addressed to me that await my acknowledgement (spec §3.4.1), oldest first: the space model's chat reducer
 * and its `awaitsAckFrom` rule, the same the control room's acknowledgement queue uses. My own acknowledgements and
 * cancellations count as soon as I send them (`sent`), so a chat is never answered twice while its echo travels.
 *
 * @example
 * const view = new ChatQueueView();
 * if (view.observe(envelope, 'me', Date.now())) render(view.pending('me'));
 */
export class ChatQueueView {
  private chat: ChatState;
  private seq = 0;
  private readonly config: StoreConfig;
  /** My receipts counted when sent, whose echoes must not count twice (bounded: an echo may never come). */
  private readonly appliedEarly = new BoundedMap<string, true>(APPLIED_EARLY_CAP);

  constructor(options: { addressedChatCap?: number } = {}) {
    // Only addressed chats matter here: the display list is kept minimal.
    this.config = resolveStoreConfig({ chatCap: 1, ...options });
    this.chat = initialChat(this.config);
  }

  pending(me: string | undefined): ChatMessage[] {
    if (me === undefined) return [];
    return [...this.chat.addressed.values()].filter((m) => awaitsAckFrom(m, this.chat.receipts.get(m.id), me));
  }

  get(id: string): ChatMessage | undefined {
    return this.chat.addressed.get(id);
  }

  /** Applies one envelope; true when what awaits my acknowledgement may have changed. */
  observe(envelope: AnyEnvelope, me: string | undefined, now: number): boolean {
    if (!CHAT_KINDS.has(envelope.kind)) return false;
    if (this.appliedEarly.delete(envelope.id)) return false; // the echo of something `sent` already counted
    const before = this.chat.ackVersion;
    const ctx: ReduceContext = { now, at: envelopeTime(envelope, now), me, seq: ++this.seq, config: this.config };
    this.chat = reduceChat(this.chat, envelope, ctx);
    return this.chat.ackVersion !== before;
  }

  /** Counts my own acknowledgement or cancellation at once, before its echo. */
  sent(envelope: AnyEnvelope, me: string, now: number): boolean {
    const changed = this.observe(envelope, me, now);
    this.appliedEarly.set(envelope.id, true);
    return changed;
  }
}
