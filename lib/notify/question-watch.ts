import type { CompiledCapabilities } from '../capabilities';
import type { AnyEnvelope } from '../protocol';
import { initialChat, mayAnswer, reduceChat, type ChatQuestion, type ChatState } from '../sdk/model/chat-slice';
import { resolveStoreConfig } from '../sdk/model/store-defaults';
import { correlationIds, envelopeTime } from '../sdk/model/store-envelope';

/** Questions remembered (open ones, and those settled, until newer ones push them out). */
const QUESTION_CAP = 10_000;

/** What a question became: asked when it arrives, then answered or withdrawn. */
export type QuestionEventType = 'asked' | ChatQuestion['state'];

export interface QuestionEvent {
  type: Exclude<QuestionEventType, 'open'>;
  question: ChatQuestion;
  at: number;
}

/** Whether an envelope may ask, answer or withdraw a question: anything else is not looked at. */
export function concernsQuestions(envelope: AnyEnvelope): boolean {
  if (envelope.kind === 'chat') return envelope.payload.question === true || correlationIds(envelope).length > 0;
  return envelope.kind === 'chat/cancel' && correlationIds(envelope).length > 0;
}

/**
 * The questions of a space (chats marked `question: true`, as `space__ask_human` asks them), fed with the envelopes
 * routed there through the SDK's own chat reducer, so the notifier and the control room agree on which are open.
 */
export class QuestionWatch {
  // No display history (one message): only the questions are read.
  private chat: ChatState = initialChat({ chatCap: 1, addressedChatCap: QUESTION_CAP });
  private seq = 0;
  private readonly config = resolveStoreConfig({ screen: false, addressedChatCap: QUESTION_CAP });

  /** Applies one envelope; returns the questions it asked, answered or withdrew. */
  apply(envelope: AnyEnvelope, now: number): QuestionEvent[] {
    if (!concernsQuestions(envelope)) return [];
    const at = envelopeTime(envelope, now);
    const asks = envelope.kind === 'chat' && envelope.payload.question === true;
    const ids = asks ? [envelope.id, ...correlationIds(envelope)] : correlationIds(envelope);
    const before = ids.map((id) => this.chat.questions.get(id));
    this.chat = reduceChat(this.chat, envelope, { now, at, me: undefined, seq: ++this.seq, config: this.config });
    const events: QuestionEvent[] = [];
    ids.forEach((id, i) => {
      const question = this.chat.questions.get(id);
      if (!question || question === before[i]) return;
      if (before[i] === undefined && question.state === 'open') events.push({ type: 'asked', question, at });
      else if (before[i]?.state === 'open' && question.state !== 'open') events.push({ type: question.state, question, at });
    });
    return events;
  }

  question(id: string): ChatQuestion | undefined {
    return this.chat.questions.get(id);
  }
}

/**
 * Whether a participant could answer the question (so its devices hear of it): the model's rule (someone other than
 * the asker, asked of everyone or of it) and its capabilities allow the answer's chat.
 */
export function mayAnswerQuestion(participant: { id: string; compiled: CompiledCapabilities }, question: ChatQuestion): boolean {
  // Settled questions are told to those who could have answered them (their notification is replaced).
  if (!mayAnswer({ ...question, state: 'open' }, participant.id)) return false;
  return participant.compiled.matches({ kind: 'chat', payload: { text: 'answer' } });
}
