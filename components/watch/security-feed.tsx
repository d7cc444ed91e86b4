'use client';

import { toast } from 'sonner';
import { useAuditView } from '@/components/audit/audit-view';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { participantById, type SecurityEvent } from '@/lib/store';
import { clockTime } from './format-time';
import { buttonClass, PanelFrame } from './panel-frame';

/** Newest events shown; the rest are in the audit log. */
const FEED_SHOWN = 50;

/**
 * Refusals of others as they happen (the gateway tells operators only): who tried what and why it was refused, with
 * one-click pause or kick of the offender and the way into the audit log. Operators only, like the events.
 */
export function SecurityFeed() {
  const audit = useAuditView();
  const feed = useSpace((s) => s.security.feed);
  if (!audit.mayRead) return null;
  const newest = feed.slice(-FEED_SHOWN).reverse();
  return (
    <PanelFrame
      title="Security events"
      badge={feed.length > 0 ? <span className="rounded-full bg-red-900/60 px-2 text-xs text-red-200">{feed.length}</span> : undefined}
      actions={
        <button type="button" className={buttonClass.secondary} onClick={() => audit.open({ type: 'ACCESS_DENIED,TOOL_BLOCKED' })}>
          In the audit log
        </button>
      }
    >
      {newest.length === 0 ? (
        <p className="text-xs text-slate-500">No refusals since you joined.</p>
      ) : (
        <ul aria-label="Refusals" className="flex max-h-64 flex-col gap-1 overflow-y-auto text-xs">
          {newest.map((event) => (
            <SecurityEventRow key={event.id} event={event} />
          ))}
        </ul>
      )}
    </PanelFrame>
  );
}

function SecurityEventRow({ event }: { event: SecurityEvent }) {
  const { participant } = useSpaceSession();
  // An unknown token has nobody behind it to pause or kick.
  const known = useSpace((s) => participantById(s, event.offender) !== undefined);
  const attempted = [event.attemptedKind, event.tool].filter(Boolean).join(' ');
  const act = (label: string, send: () => void) => {
    try {
      send();
      toast.success(`${label} sent`);
    } catch (error) {
      toast.error(`${label} failed`, { description: (error as Error).message });
    }
  };
  return (
    <li className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded border border-slate-800 px-2 py-1">
      <span className="font-mono text-slate-500">{clockTime(event.at)}</span>
      <span className="font-mono text-slate-100">{event.offender}</span>
      <span className="text-red-300">{event.error}</span>
      {attempted && <span className="text-slate-300">tried {attempted}</span>}
      {event.suppressed > 0 && <span className="text-slate-500">(+{event.suppressed} more)</span>}
      {known && (
        <span className="ml-auto flex gap-1">
          <button
            type="button"
            className={buttonClass.secondary}
            aria-label={`Pause ${event.offender}`}
            onClick={() => act(`Pause of ${event.offender}`, () => participant.operate.pause(event.offender, { reason: `refused: ${event.error}` }))}
          >
            Pause
          </button>
          <button
            type="button"
            className={buttonClass.danger}
            aria-label={`Kick ${event.offender}`}
            onClick={() =>
              act(`Kick of ${event.offender}`, () => participant.operate.kick({ participant_id: event.offender, reason: `refused: ${event.error}` }))
            }
          >
            Kick
          </button>
        </span>
      )}
    </li>
  );
}
