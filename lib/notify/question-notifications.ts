import type { WebhookFormat } from '../protocol';
import { maskText } from '../secrets/secret-masking';
import { shorten } from './proposal-summary';
import type { PushMessage } from './push-message';
import type { QuestionEvent } from './question-watch';
import { escapeSlack } from './webhook-payload';

/** Characters of a question's text in a push (a lock screen shows a few lines). */
export const QUESTION_PUSH_CHARS = 240;

/** The event webhooks receive for a new question (answers and withdrawals are not posted). */
export const QUESTION_ASKED_EVENT = 'question.asked';

/** The control room's page of a question: its card in the chat panel's questions, reply box focused. */
export function questionPagePath(space: string, questionId: string): string {
  return `/spaces/${encodeURIComponent(space)}#question=${encodeURIComponent(questionId)}`;
}

/**
 * A question, for a device of someone who may answer it: its text (secrets masked), no action links (an answer is
 * typed in the control room, which the notification opens). Tagged with the question's id, so what became of it
 * replaces it.
 */
export function askedPush(space: string, event: QuestionEvent): PushMessage {
  const { message } = event.question;
  return {
    title: `${message.from} asks`,
    body: `${space} · ${shorten(maskText(message.text), QUESTION_PUSH_CHARS)}`,
    url: questionPagePath(space, message.id),
    tag: message.id,
  };
}

/** An answered or withdrawn question: replaces its notification (same tag). */
export function settledPush(space: string, event: QuestionEvent): PushMessage {
  const { message, answer } = event.question;
  const outcome = event.type === 'answered' ? `answered by ${answer?.by ?? 'someone'}` : `withdrawn by ${message.from}`;
  return {
    title: `Question from ${message.from} ${outcome}`,
    body: `${space} · ${shorten(maskText(message.text), QUESTION_PUSH_CHARS)}`,
    url: questionPagePath(space, message.id),
    tag: message.id,
  };
}

/** The plain JSON a `json` webhook receives for a new question. */
export interface QuestionWebhookBody {
  event: typeof QUESTION_ASKED_EVENT;
  space: string;
  question: {
    id: string;
    /** Who asks (an MCP client's participant, for `space__ask_human`). */
    from: string;
    /** Whom it asks; empty: everyone in the space. */
    to: readonly string[];
    /** Secrets masked. */
    text: string;
  };
  /** When it was asked (ISO 8601). */
  at: string;
  /** The question in the control room, where it is answered. */
  url: string;
}

/** What a webhook receives for a new question: plain JSON, or a Slack message with the same facts. */
export function questionWebhookBody(format: WebhookFormat, space: string, event: QuestionEvent, url: string): unknown {
  const { message } = event.question;
  const text = maskText(message.text);
  if (format === 'slack') {
    const headline = `${message.from} asks a question in ${space}`;
    return {
      text: `${headline}: ${shorten(text, QUESTION_PUSH_CHARS)}`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(headline)}*\n${escapeSlack(text)}` } },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: `to ${escapeSlack(message.to?.join(', ') || 'everyone')} · <${url}|answer>` }],
        },
      ],
    };
  }
  const body: QuestionWebhookBody = {
    event: QUESTION_ASKED_EVENT,
    space,
    question: { id: message.id, from: message.from, to: message.to ?? [], text },
    at: new Date(event.at).toISOString(),
    url,
  };
  return body;
}
