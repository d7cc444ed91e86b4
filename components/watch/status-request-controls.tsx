'use client';

import { useEffect, useId, useState } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { buttonClass, fieldClass } from './panel-frame';
import { clockTime } from './format-time';
import { useCanSend } from './use-can-send';

const POLL_OPTIONS = [
  { label: 'Off', ms: 0 },
  { label: 'Every 5 s', ms: 5_000 },
  { label: 'Every 15 s', ms: 15_000 },
  { label: 'Every 60 s', ms: 60_000 },
] as const;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * "Request status now" and optional polling, both sending `participant/request-status` to `target`, plus what
 * became of my last request (from the participant's last control and its correlated reply).
 */
export function StatusRequestControls({ target }: { target: string | undefined }) {
  const { participant, store } = useSpaceSession();
  const [pollMs, setPollMs] = useState(0);
  const pollId = useId();
  const mayRequest = useCanSend('participant/request-status', {});
  const me = useSpace((s) => s.connection.me);
  const control = useSpace((s) => (target ? s.participants.byId.get(target)?.lastControl : undefined));
  const disabled = !target || target === me || !mayRequest;

  useEffect(() => {
    if (!pollMs || !target || target === me || !mayRequest) return;
    const timer = setInterval(() => {
      // While disconnected the SDK would queue every tick; a poll only makes sense live.
      if (store.getState().connection.status !== 'ready') return;
      try {
        participant.telemetry.request(target);
      } catch (error) {
        setPollMs(0);
        toast.error('Polling stopped', { description: errorText(error) });
      }
    }, pollMs);
    return () => clearInterval(timer);
  }, [pollMs, target, me, mayRequest, participant, store]);

  const requestNow = () => {
    if (!target) return;
    try {
      participant.telemetry.request(target);
    } catch (error) {
      toast.error('Could not request status', { description: errorText(error) });
    }
  };

  const mine = control && control.kind === 'participant/request-status' && control.from === me ? control : undefined;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" className={buttonClass.primary} onClick={requestNow} disabled={disabled}>
        Request status now
      </button>
      <label htmlFor={pollId} className="text-xs text-slate-400">
        Poll
      </label>
      <select id={pollId} className={fieldClass} value={pollMs} onChange={(e) => setPollMs(Number(e.target.value))} disabled={disabled}>
        {POLL_OPTIONS.map((o) => (
          <option key={o.ms} value={o.ms}>
            {o.label}
          </option>
        ))}
      </select>
      <p aria-live="polite" className="text-xs text-slate-400">
        {!mayRequest
          ? 'You may not request status.'
          : mine
            ? mine.completed
              ? `Answered at ${clockTime(mine.completedAt ?? mine.at)}`
              : `Requested at ${clockTime(mine.at)}, waiting for ${target}…`
            : ''}
      </p>
    </div>
  );
}
