'use client';

import { memo, useCallback, useId, useState } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { awaitingMyAck, type ChatMessage } from '@/lib/store';
import { clockTime } from './format-time';
import { buttonClass } from './panel-frame';
import { SecretMask, useMaskedValue } from './revealed-secrets';

/** Why the human's cancels say a chat no longer needs attention (spec §3.4.2). */
const CANCEL_REASON = 'cancelled by human';

/** Items rendered; "Cancel all" still covers the rest. */
const SHOWN = 50;

function failed(what: string, error: unknown) {
  toast.error(what, { description: error instanceof Error ? error.message : String(error) });
}

const QueueItem = memo(function QueueItem({
  message,
  busy,
  onAck,
  onCancel,
}: {
  message: ChatMessage;
  busy: boolean;
  onAck: (m: ChatMessage) => void;
  onCancel: (m: ChatMessage) => void;
}) {
  const textId = useId();
  const text = useMaskedValue(message.id, message.text);
  return (
    <li className="flex flex-col gap-1.5 rounded-md border border-amber-900/60 bg-amber-950/20 p-2 sm:flex-row sm:items-start">
      <div className="min-w-0 flex-1">
        <p className="text-xs text-slate-400">
          <span className="font-mono font-medium text-slate-200">{message.from}</span> · {clockTime(message.at)}
        </p>
        <p id={textId} className="line-clamp-3 whitespace-pre-wrap break-words text-sm text-slate-100">
          {text.shown}
        </p>
        {text.secret && <SecretMask envelopeId={message.id} what="message" />}
      </div>
      <div className="flex shrink-0 gap-1.5">
        <button type="button" className={buttonClass.primary} disabled={busy} onClick={() => onAck(message)} aria-describedby={textId}>
          Acknowledge
        </button>
        <button type="button" className={buttonClass.secondary} disabled={busy} onClick={() => onCancel(message)} aria-describedby={textId}>
          Cancel
        </button>
      </div>
    </li>
  );
});

/**
 * Chats addressed to me that await my acknowledgement (spec §3.4.1): acknowledge or cancel one, or cancel all
 * (one `chat/cancel` per message, for an auditable trail). An item leaves when the gateway echoes my reply.
 */
export function AckQueue() {
  const { participant } = useSpaceSession();
  const queue = useSpace(awaitingMyAck);
  const [sent, setSent] = useState<ReadonlySet<string>>(() => new Set());
  const headingId = useId();

  const mark = useCallback((ids: string[]) => setSent((prev) => new Set([...prev, ...ids])), []);
  const onAck = useCallback(
    (m: ChatMessage) => {
      try {
        participant.chat.acknowledge(m.id);
        mark([m.id]);
      } catch (error) {
        failed('Could not acknowledge', error);
      }
    },
    [participant, mark],
  );
  const onCancel = useCallback(
    (m: ChatMessage) => {
      try {
        participant.chat.cancel(m.id, CANCEL_REASON);
        mark([m.id]);
      } catch (error) {
        failed('Could not cancel', error);
      }
    },
    [participant, mark],
  );
  const cancelAll = () => {
    const ids: string[] = [];
    try {
      for (const m of queue) {
        if (sent.has(m.id)) continue;
        participant.chat.cancel(m.id, CANCEL_REASON);
        ids.push(m.id);
      }
    } catch (error) {
      failed('Could not cancel every message', error);
    }
    mark(ids);
  };

  if (queue.length === 0) return null;
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <div className="flex items-center gap-2">
        <h3 id={headingId} className="text-xs font-semibold text-amber-200">
          Awaiting your acknowledgement ({queue.length})
        </h3>
        <button type="button" className={`${buttonClass.danger} ml-auto`} onClick={cancelAll}>
          Cancel all
        </button>
      </div>
      <ul className="flex max-h-56 flex-col gap-1.5 overflow-y-auto">
        {queue.slice(0, SHOWN).map((m) => (
          <QueueItem key={m.id} message={m} busy={sent.has(m.id)} onAck={onAck} onCancel={onCancel} />
        ))}
      </ul>
      {queue.length > SHOWN && <p className="text-xs text-slate-400">and {queue.length - SHOWN} more</p>}
    </section>
  );
}
