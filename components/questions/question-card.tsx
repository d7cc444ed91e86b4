'use client';

import { memo, useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Age } from '@/components/proposals/proposal-clock';
import { useSpaceSession } from '@/components/session/space-session';
import { buttonClass, fieldClass } from '@/components/watch/panel-frame';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';
import { useCanSend } from '@/components/watch/use-can-send';
import { answerRecipients, type ChatQuestion } from '@/lib/store';

/** How long an answer (or a dismissal) may wait for the gateway's acceptance before the card opens again. */
const ACCEPT_TIMEOUT_MS = 15_000;

/** Why my `chat/cancel` of a question I dismiss says it no longer needs my attention (spec §3.4.2). */
const DISMISS_REASON = 'dismissed';

/** The DOM id of a question's card, which a `#question=<id>` link (a webhook's) scrolls to. */
export function questionAnchor(questionId: string): string {
  return `question-${questionId}`;
}

/**
 * An open question (a chat marked `question: true`, as an MCP client's `space__ask_human` asks it) with its reply
 * box: the answer is a chat correlated to the question, to everyone for a question to everyone, else to its asker and
 * those it was asked of. Enter sends, Shift+Enter starts a new line. The card leaves its list when the answer (mine or
 * anyone's) comes back from the gateway; until then it says the answer is on its way. Dismiss (a `chat/cancel` of
 * mine) takes it off my list alone: its asker still waits, and the others may still answer.
 */
export const QuestionCard = memo(function QuestionCard({ question }: { question: ChatQuestion }) {
  const { participant } = useSpaceSession();
  const { message } = question;
  // Secrets show masked (`ghp_…abcd`) unless an operator revealed this question, as in the chat.
  const shown = useMaskedValue(message.id, message.text);
  const mayChat = useCanSend('chat', { text: 'x' });
  const mayDismiss = useCanSend('chat/cancel', {});
  const [text, setText] = useState('');
  /** What I sent and wait for the gateway to accept: then the card goes. */
  const [sent, setSent] = useState<'answer' | 'dismissal'>();
  const [error, setError] = useState<string>();
  const headingId = useId();
  const textId = useId();
  const inputId = useId();

  /** Sends, then waits: accepted, the card goes (the question answered, or dismissed for me); refused or lost, it opens again with why. */
  const track = (what: 'answer' | 'dismissal', sendIt: () => { id: string }) => {
    try {
      const envelope = sendIt();
      setSent(what);
      setError(undefined);
      participant.awaitReply(envelope.id, { replyKinds: [], timeoutMs: ACCEPT_TIMEOUT_MS }).catch((e: unknown) => {
        setSent(undefined);
        setError(e instanceof Error ? e.message : String(e));
      });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const send = (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || !mayChat || sent) return;
    track('answer', () => participant.chat.send(text, answerRecipients(question), { correlationId: [message.id] }));
  };
  // For me alone (its asker still waits): e.g. a question whose asker is gone and will never withdraw it.
  const dismiss = () => {
    if (!sent) track('dismissal', () => participant.chat.cancel(message.id, DISMISS_REASON));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) send(event);
  };

  return (
    <article
      id={questionAnchor(message.id)}
      aria-labelledby={headingId}
      aria-describedby={textId}
      className="flex scroll-mt-4 flex-col gap-1.5 rounded-md border border-violet-800/70 bg-violet-950/20 p-2"
    >
      <div id={headingId} className="flex flex-wrap items-baseline gap-x-2 text-xs text-slate-400">
        <span className="font-semibold text-violet-200">Question from {message.from}</span>
        {message.to && message.to.length > 0 && <span>to {message.to.join(', ')}</span>}
        <span className="ml-auto">
          <Age at={message.at} />
        </span>
      </div>
      {/* Rendered as text, never as HTML. */}
      <p id={textId} className="whitespace-pre-wrap break-words text-sm text-slate-100">
        {shown.shown}
      </p>
      {shown.secret && <SecretMask envelopeId={message.id} what="question" />}
      <form onSubmit={send} className="flex items-end gap-2">
        <label htmlFor={inputId} className="sr-only">
          Answer to {message.from}
        </label>
        <textarea
          id={inputId}
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={`Answer ${message.from}…`}
          disabled={!mayChat || !!sent}
          className={`${fieldClass} min-w-0 flex-1 resize-y text-sm`}
        />
        <div className="flex flex-col gap-1">
          <button type="submit" className={buttonClass.primary} disabled={!mayChat || !!sent || !text.trim()}>
            {sent === 'answer' ? 'Sending…' : 'Send answer'}
          </button>
          {mayDismiss && (
            <button type="button" className={buttonClass.secondary} disabled={!!sent} onClick={dismiss} aria-describedby={textId}>
              Dismiss
            </button>
          )}
        </div>
      </form>
      {!mayChat && <p className="text-xs text-amber-300">Your capabilities do not allow chat: you cannot answer.</p>}
      {sent && (
        <p role="status" className="text-xs text-slate-400">
          {sent === 'answer' ? 'Answer sent' : 'Dismissed'}; waiting for the gateway.
        </p>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-300">
          Not sent: {error}
        </p>
      )}
    </article>
  );
});
