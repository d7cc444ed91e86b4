'use client';

import { CONTROL_COMPLETION_KINDS, type ControlReply, type ControlState } from '@/lib/store';
import { describeRefusal, useOutcome, type TrackedSend } from './action-outcome';
import { RelativeTime } from './relative-time';

const numbers = new Intl.NumberFormat('en');

const NAMES: Record<ControlState['kind'], string> = {
  'participant/pause': 'pause',
  'participant/resume': 'resume',
  'participant/request-status': 'request status',
  'participant/forget': 'forget',
  'participant/compact': 'compact',
  'participant/clear': 'clear',
  'participant/restart': 'restart',
  'participant/shutdown': 'shutdown',
};

/** "compact-done: freed 1,200 tokens", "status received (shutting down)", "acknowledged". */
export function describeReply(reply: ControlReply): string {
  const p = reply.payload;
  // Agents say `shutting_down`; people read "shutting down".
  const text = (key: string) => (typeof p[key] === 'string' ? (p[key] as string).replaceAll('_', ' ') : undefined);
  const count = (key: string) => (typeof p[key] === 'number' ? numbers.format(p[key] as number) : undefined);
  switch (reply.kind) {
    case 'participant/compact-done': {
      if (p.skipped === true) return `compact-done: skipped${text('reason') ? ` (${text('reason')})` : ''}`;
      const freed = [count('freed_tokens') && `${count('freed_tokens')} tokens`, count('freed_messages') && `${count('freed_messages')} messages`].filter(
        Boolean,
      );
      return `compact-done: ${freed.length ? `freed ${freed.join(', ')}` : (text('status') ?? 'done')}`;
    }
    case 'participant/status':
      return `status received${text('status') ? ` (${text('status')})` : ''}`;
    case 'chat/acknowledge':
      return `acknowledged${text('status') ? ` (${text('status')})` : ''}`;
    default:
      return reply.kind;
  }
}

/**
 * "completed: " and the reply that completed the control (compact-done, not the interim status), then the latest if
 * it differs; before that, the interim replies or "awaiting reply". Said in words, not only in colour.
 */
function progress(control: ControlState): string {
  const last = control.replies.at(-1);
  const closing = CONTROL_COMPLETION_KINDS[control.kind];
  const completion = closing ? control.replies.find((r) => closing.includes(r.kind)) : last;
  if (completion && last && completion !== last) return `completed: ${describeReply(completion)} · ${describeReply(last)}`;
  if (completion) return `completed: ${describeReply(completion)}`;
  if (last) return `in progress: ${describeReply(last)}`;
  if (control.kind === 'participant/pause') return 'in effect';
  if (control.kind === 'participant/resume') return 'lifted';
  return 'awaiting reply';
}

/**
 * The card's line about controls: my latest send while the gateway has not accepted it (or its refusal), else the
 * last control the store saw for this participant and what came back.
 */
export function ControlStatus({ control, pending }: { control?: ControlState; pending?: { sent: TrackedSend; label: string } }) {
  const outcome = useOutcome(pending?.sent);
  let body: React.ReactNode = null;
  if (pending && outcome?.refusal) {
    body = (
      <span className="text-red-300">
        {pending.label} refused — {describeRefusal(outcome.refusal)}
      </span>
    );
  } else if (pending && !outcome?.accepted) {
    body = <span className="text-slate-400">{pending.label}: sending…</span>;
  } else if (control) {
    body = (
      <span className="text-slate-400">
        Last control: <span className="text-slate-200">{NAMES[control.kind]}</span> by {control.from} <RelativeTime at={control.at} /> —{' '}
        <span className={control.completed ? 'text-emerald-300' : 'text-slate-300'}>{progress(control)}</span>
      </span>
    );
  }
  return (
    <p role="status" className="min-h-0 text-xs empty:hidden">
      {body}
    </p>
  );
}
