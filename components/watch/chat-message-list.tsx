'use client';

import { memo, useMemo } from 'react';
import { useSpace } from '@/components/session/space-session';
import { chatMessages, type ChatMessage, type ChatQuestion, type ChatReceipt } from '@/lib/store';
import { clockTime } from './format-time';
import { inTimeOrder } from './in-time-order';
import { buttonClass } from './panel-frame';
import { SecretMask, useMaskedValue } from './revealed-secrets';
import { useFollowingList } from './use-following-list';
import { useThrottledSpace } from './use-throttled-space';

const timeOf = (m: ChatMessage) => m.at;
const seqOf = (m: ChatMessage) => m.seq;

/** The list grows up to this height, then scrolls. */
const MAX_LIST_PX = 256;

/** Chat bursts redraw a few times a second at most. */
const CHAT_THROTTLE_MS = 150;

function receiptText(receipt: ChatReceipt | undefined): { text: string; tone: string } | undefined {
  if (!receipt) return undefined;
  // A status is shown as its sender said it (`received`, `read`; the reference implementation's agents say `processing`).
  const acks = receipt.acks.map((a) => (a.status ? `${a.by} (${a.status})` : a.by));
  const cancels = receipt.cancels.map((c) => (c.reason ? `${c.by} (${c.reason})` : c.by));
  const parts = [];
  if (acks.length > 0) parts.push(`acknowledged by ${[...new Set(acks)].join(', ')}`);
  if (cancels.length > 0) parts.push(`cancelled by ${[...new Set(cancels)].join(', ')}`);
  return parts.length > 0 ? { text: parts.join(' · '), tone: acks.length > 0 ? 'text-emerald-400' : 'text-slate-400' } : undefined;
}

/** What became of a question, under it: open (its reply box is above, in the questions for me), answered, withdrawn. */
function questionStatus(question: ChatQuestion | undefined, me: string | undefined, answerText: string): { text: string; tone: string } {
  if (question?.state === 'answered' && question.answer) {
    const by = question.answer.by === me ? 'you' : question.answer.by;
    return { text: `answered by ${by}: ${answerText}`, tone: 'text-emerald-400' };
  }
  if (question?.state === 'withdrawn') {
    return { text: `withdrawn by its asker${question.withdrawn?.reason ? ` (${question.withdrawn.reason})` : ''}`, tone: 'text-slate-400' };
  }
  return { text: 'waiting for an answer', tone: 'text-violet-300' };
}

const MessageRow = memo(function MessageRow({
  message,
  me,
  receipt,
  question,
  answers,
}: {
  message: ChatMessage;
  me?: string;
  receipt?: ChatReceipt;
  /** The question this message is, when it is one. */
  question?: ChatQuestion;
  /** The question this message answers, when it answers one. */
  answers?: ChatQuestion;
}) {
  const toMe = me !== undefined && message.to?.includes(me);
  const status = message.to && message.to.length > 0 ? receiptText(receipt) : undefined;
  // Secrets show masked (`ghp_…abcd`) unless an operator revealed this message, which the audit log records; the
  // answer and the question quoted here show as their own messages do.
  const text = useMaskedValue(message.id, message.text);
  const answer = useMaskedValue(question?.answer?.id ?? '', question?.answer?.text ?? '');
  const quoted = useMaskedValue(answers?.message.id ?? '', answers?.message.text ?? '');
  const asked = message.question ? questionStatus(question, me, answer.shown) : undefined;
  return (
    <div className={`border-l-2 px-2 py-1.5 ${toMe ? 'border-amber-500/70 bg-amber-950/10' : 'border-transparent'}`}>
      <div className="flex flex-wrap items-baseline gap-x-2 text-xs">
        {message.question && <span className="rounded bg-violet-900/60 px-1.5 py-0.5 text-[11px] font-medium text-violet-200">Question</span>}
        <span className="font-mono font-medium text-slate-200">{message.from === me ? 'you' : message.from}</span>
        <span className="text-slate-500">→ {message.to && message.to.length > 0 ? message.to.map((t) => (t === me ? 'you' : t)).join(', ') : 'everyone'}</span>
        <time className="ml-auto text-slate-500" dateTime={new Date(message.at).toISOString()}>
          {clockTime(message.at)}
        </time>
      </div>
      {answers && (
        <p className="truncate text-[11px] text-slate-400">
          answering {answers.message.from}: {quoted.shown}
        </p>
      )}
      {/* Rendered as text, never as HTML, whatever `format` says. */}
      <p className="whitespace-pre-wrap break-words text-sm text-slate-100">{text.shown}</p>
      {text.secret && <SecretMask envelopeId={message.id} what="message" />}
      {status && <p className={`text-[11px] ${status.tone}`}>{status.text}</p>}
      {asked && <p className={`text-[11px] ${asked.tone}`}>{asked.text}</p>}
    </div>
  );
});

/** The question a chat answers: the one it correlates to whose answer it is. */
function answeredBy(message: ChatMessage, questions: ReadonlyMap<string, ChatQuestion>): ChatQuestion | undefined {
  for (const id of message.correlationIds) {
    const question = questions.get(id);
    if (question?.answer?.id === message.id) return question;
  }
  return undefined;
}

/** Every chat, oldest first, virtualised, following the newest unless the reader scrolled up. */
export function ChatMessageList() {
  const arrived = useThrottledSpace(chatMessages, CHAT_THROTTLE_MS);
  const messages = useMemo(() => inTimeOrder(arrived, timeOf, seqOf), [arrived]);
  // Receipts live in a map updated in place; `ackVersion` says when it changed.
  useSpace((s) => s.chat.ackVersion);
  const receipts = useSpace((s) => s.chat.receipts);
  // Questions too: a map updated in place, `questionVersion` says when.
  useSpace((s) => s.chat.questionVersion);
  const questions = useSpace((s) => s.chat.questions);
  const me = useSpace((s) => s.connection.me);
  const { scrollRef, virtualizer, totalSize, following, scrollProps, scrollToNewest } = useFollowingList({
    count: messages.length,
    estimateSize: 52,
    getItemKey: (i) => messages[i].id,
    overscan: 6,
  });

  if (messages.length === 0) return <p className="text-xs text-slate-400">No messages yet.</p>;
  return (
    <div className="relative">
      <div
        ref={scrollRef}
        {...scrollProps}
        // Rows hold no button: the box itself takes focus, so the keyboard can scroll it too.
        tabIndex={0}
        className="overflow-y-auto rounded-md border border-slate-800 bg-slate-950/60 [contain:strict] [overflow-anchor:none] focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
        // Grows with a short conversation, then scrolls.
        style={{ height: Math.min(totalSize + 2, MAX_LIST_PX) }}
      >
        <div role="list" aria-label="Messages" className="relative w-full" style={{ height: totalSize }}>
          {virtualizer.getVirtualItems().map((item) => {
            const message = messages[item.index];
            return (
              <div
                key={item.key}
                role="listitem"
                aria-setsize={messages.length}
                aria-posinset={item.index + 1}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="absolute left-0 top-0 w-full"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <MessageRow
                  message={message}
                  me={me}
                  receipt={receipts.get(message.id)}
                  question={message.question ? questions.get(message.id) : undefined}
                  answers={answeredBy(message, questions)}
                />
              </div>
            );
          })}
        </div>
      </div>
      {!following && (
        <button type="button" onClick={scrollToNewest} className={`${buttonClass.secondary} absolute bottom-2 right-4 shadow-lg`}>
          Jump to newest
        </button>
      )}
    </div>
  );
}
