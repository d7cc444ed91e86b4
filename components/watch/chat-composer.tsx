'use client';

import { useId, useMemo, useState, type FormEvent, type KeyboardEvent } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { buttonClass, fieldClass } from './panel-frame';
import { RecipientPicker } from './recipient-picker';
import { useParticipantRoster } from './use-participant-roster';
import { useCanSend } from './use-can-send';

/** Writes a chat to everyone or to chosen participants; Enter sends, Shift+Enter starts a new line. */
export function ChatComposer() {
  const { participant } = useSpaceSession();
  const me = useSpace((s) => s.connection.me);
  const everyone = useParticipantRoster();
  const others = useMemo(() => everyone.filter((p) => p.id !== me), [everyone, me]);
  const [to, setTo] = useState<string[]>([]);
  const [text, setText] = useState('');
  const mayChat = useCanSend('chat', { text: 'x' });
  const inputId = useId();

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || !mayChat) return;
    try {
      participant.chat.send(text, to.length > 0 ? to : undefined);
      setText('');
    } catch (error) {
      toast.error('Message not sent', { description: error instanceof Error ? error.message : String(error) });
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) send(event);
  };

  return (
    <form onSubmit={send} className="flex flex-col gap-2 border-t border-slate-800 pt-2">
      <RecipientPicker options={others} selected={to} onChange={setTo} />
      <div className="flex items-end gap-2">
        <label htmlFor={inputId} className="sr-only">
          Message
        </label>
        <textarea
          id={inputId}
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={to.length > 0 ? `Message ${to.join(', ')}…` : 'Message everyone…'}
          disabled={!mayChat}
          className={`${fieldClass} min-w-0 flex-1 resize-y text-sm`}
        />
        <button type="submit" className={buttonClass.primary} disabled={!mayChat || !text.trim()}>
          Send
        </button>
      </div>
      {!mayChat && <p className="text-xs text-amber-300">Your capabilities do not allow chat.</p>}
    </form>
  );
}
