'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useSpaceSession } from '@/components/session/space-session';
import { Dialog } from '@/components/ui/dialog';
import { TimeOrderToggle, useTimeOrder } from '@/components/ui/time-order';
import { downloadText } from '@/components/watch/download-text';
import { clockTime } from '@/components/watch/format-time';
import { useStickyScroll } from '@/components/watch/use-sticky-scroll';
import { AUDIT_EVENT_TYPES, type AuditEvent, type AuditVerification } from '@/lib/protocol';
import { auditQuery, EMPTY_AUDIT_FILTER, fetchAudit, type AuditFilter } from './audit-api-client';
import { useAuditEvents } from './use-audit-events';

const ROW_HEIGHT = 32;
/** The chain is checked again this often while the view is open. */
const VERIFY_EVERY_MS = 15_000;

const FIELD =
  'w-full rounded border border-slate-700 bg-slate-950 px-2 py-1 text-xs text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';
const BUTTON =
  'rounded border border-slate-700 px-2 py-1 text-xs text-slate-200 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';

const TEXT_FIELDS: { key: keyof AuditFilter; label: string; placeholder: string; list?: string }[] = [
  { key: 'type', label: 'Type', placeholder: 'e.g. ACCESS_DENIED', list: 'audit-types' },
  { key: 'participant', label: 'Participant', placeholder: 'actor or subject' },
  { key: 'actor', label: 'Actor', placeholder: 'who did it' },
  { key: 'trace', label: 'Proposal', placeholder: 'proposal id (its trail)' },
  { key: 'q', label: 'Search', placeholder: 'text anywhere' },
];

/** Today's events by their time, older ones with their date too (the full time is the cell's title). */
function shortTime(ts: string): string {
  const time = new Date(ts);
  const today = new Date().toDateString() === time.toDateString();
  return today ? clockTime(time.getTime()) : `${time.toLocaleDateString()} ${clockTime(time.getTime())}`;
}

/** One line of what an event says, for the table. */
function summary(event: AuditEvent): string {
  const { details } = event;
  const parts = [
    typeof details.tool === 'string' && details.tool,
    typeof details.outcome === 'string' && details.outcome,
    typeof details.reason === 'string' && `“${details.reason}”`,
    typeof details.attempted_kind === 'string' && `tried ${details.attempted_kind}`,
    typeof details.error === 'string' && details.error,
    typeof details.address === 'string' && `from ${details.address} over ${String(details.via)}`,
    typeof details.code === 'number' && `closed ${details.code}`,
  ].filter(Boolean);
  return parts.join(' · ');
}

/**
 * The space's audit log for operators: live, filtered, searchable, each event's raw record, each proposal's trail,
 * export of what the filter shows, and whether the hash chain verifies. The server decides who may read it.
 */
export function AuditDialog({ open, onClose, initial }: { open: boolean; onClose: () => void; initial: AuditFilter }) {
  return (
    <Dialog open={open} onClose={onClose} size="wide" title="Audit log">
      <AuditView initial={initial} />
    </Dialog>
  );
}

function AuditView({ initial }: { initial: AuditFilter }) {
  const { space, token } = useSpaceSession();
  const [draft, setDraft] = useState(initial);
  const [filter, setFilter] = useState(initial);
  const { events: newestFirst, error, loading } = useAuditEvents(filter, true);
  // In the order the envelope log shows (one toggle for both): oldest first, newest at the bottom and followed.
  const [order] = useTimeOrder();
  const events = useMemo(() => (order === 'oldest-first' ? [...newestFirst].reverse() : newestFirst), [newestFirst, order]);
  const [selected, setSelected] = useState<AuditEvent>();
  const verification = useVerification();
  const formId = useId();

  // Applies typing after a short pause, so the server is not asked on every key.
  useEffect(() => {
    const timer = setTimeout(() => setFilter(draft), 300);
    return () => clearTimeout(timer);
  }, [draft]);

  // What the form says now, even if the table has not caught up with the last keystroke yet.
  const exportAs = async (format: 'jsonl' | 'csv') => {
    try {
      const text = await fetchAudit<string>(space, token, '/export', auditQuery(draft, { format }));
      downloadText(`audit-${space}.${format}`, text, format === 'csv' ? 'text/csv' : 'application/x-ndjson');
    } catch (e) {
      toast.error('Export failed', { description: (e as Error).message });
    }
  };

  return (
    <div className="flex flex-col gap-3 p-4 pt-0">
      <VerificationState verification={verification} />
      <form
        id={formId}
        role="search"
        aria-label="Filter the audit log"
        className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7"
        onSubmit={(e) => e.preventDefault()}
      >
        {TEXT_FIELDS.map(({ key, label, placeholder, list }) => (
          <label key={key} className="flex flex-col gap-0.5 text-[11px] text-slate-400">
            {label}
            <input
              className={FIELD}
              value={draft[key]}
              placeholder={placeholder}
              list={list}
              data-autofocus={key === 'type' ? true : undefined}
              onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
            />
          </label>
        ))}
        {(['since', 'until'] as const).map((key) => (
          <label key={key} className="flex flex-col gap-0.5 text-[11px] text-slate-400">
            {key === 'since' ? 'From' : 'Until'}
            <input type="datetime-local" className={FIELD} value={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })} />
          </label>
        ))}
        <datalist id="audit-types">
          {Object.keys(AUDIT_EVENT_TYPES).map((type) => (
            <option key={type} value={type} />
          ))}
        </datalist>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-xs text-slate-400">
        <span role="status">
          {error ? (
            <span className="text-red-300">{error}</span>
          ) : loading ? (
            'Loading…'
          ) : (
            `${events.length} events (${order === 'oldest-first' ? 'oldest first, newest at the bottom' : 'newest first'}, live)`
          )}
        </span>
        <span className="ml-auto flex gap-2">
          <TimeOrderToggle className={BUTTON} />
          <button type="button" className={BUTTON} onClick={() => setDraft(EMPTY_AUDIT_FILTER)}>
            Clear filters
          </button>
          <button type="button" className={BUTTON} onClick={() => void exportAs('jsonl')}>
            Export JSONL
          </button>
          <button type="button" className={BUTTON} onClick={() => void exportAs('csv')}>
            Export CSV
          </button>
        </span>
      </div>
      <div className="grid min-h-0 gap-3 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <EventTable
          key={order}
          edge={order === 'oldest-first' ? 'bottom' : 'top'}
          events={events}
          selected={selected}
          onSelect={setSelected}
          onTrail={(trace) => setDraft({ ...draft, trace })}
        />
        <EventDetail event={selected} />
      </div>
    </div>
  );
}

function useVerification(): AuditVerification | Error | undefined {
  const { space, token } = useSpaceSession();
  const [state, setState] = useState<AuditVerification | Error>();
  useEffect(() => {
    let live = true;
    const check = () =>
      fetchAudit<AuditVerification>(space, token, '/verify').then(
        (result) => live && setState(result),
        (error: Error) => live && setState(error),
      );
    void check();
    const timer = setInterval(check, VERIFY_EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [space, token]);
  return state;
}

function VerificationState({ verification }: { verification: AuditVerification | Error | undefined }) {
  if (verification === undefined) return <p className="text-xs text-slate-400">Checking the hash chain…</p>;
  if (verification instanceof Error) return <p className="text-xs text-amber-300">Chain not checked: {verification.message}</p>;
  if (verification.ok) {
    return (
      <p className="text-xs text-emerald-300" title={verification.head ? `Head #${verification.head.id}: ${verification.head.hash}` : undefined}>
        Hash chain verified: {verification.checked} events intact
      </p>
    );
  }
  return (
    <p role="alert" className="text-xs font-medium text-red-300">
      Hash chain broken at event #{verification.broken_at}: the log was changed outside the gateway ({verification.checked} events before it are intact)
    </p>
  );
}

function EventTable({
  events,
  edge,
  selected,
  onSelect,
  onTrail,
}: {
  events: AuditEvent[];
  /** Where the newest events are; the view stays there as they arrive until the reader scrolls away. */
  edge: 'bottom' | 'top';
  selected?: AuditEvent;
  onSelect: (event: AuditEvent) => void;
  onTrail: (trace: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const { scrollProps } = useStickyScroll(scroller, `${events.length}:${virtualizer.getTotalSize()}`, edge);
  return (
    <div role="table" aria-label="Audit events" aria-rowcount={events.length} className="flex min-w-0 flex-col rounded border border-slate-800 text-xs">
      <div role="row" className="grid grid-cols-[9rem_11rem_7rem_7rem_minmax(0,1fr)] gap-2 border-b border-slate-800 px-2 py-1 text-slate-400">
        {['Time', 'Type', 'Actor', 'Subject', 'Details'].map((h) => (
          <span key={h} role="columnheader">
            {h}
          </span>
        ))}
      </div>
      <div ref={scroller} {...scrollProps} className="h-[50vh] overflow-y-auto overscroll-contain [overflow-anchor:none]">
        <div role="rowgroup" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const event = events[item.index];
            const trace = typeof event.details.trace_id === 'string' ? event.details.trace_id : undefined;
            return (
              <div
                key={event.id}
                role="row"
                aria-rowindex={item.index + 1}
                aria-selected={selected?.id === event.id}
                tabIndex={0}
                onClick={() => onSelect(event)}
                onKeyDown={(e) => e.key === 'Enter' && onSelect(event)}
                className={`absolute left-0 grid w-full cursor-pointer grid-cols-[9rem_11rem_7rem_7rem_minmax(0,1fr)] items-center gap-2 px-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 ${
                  selected?.id === event.id ? 'bg-slate-800' : 'hover:bg-slate-900'
                }`}
                style={{ top: item.start, height: ROW_HEIGHT }}
              >
                <span role="cell" className="truncate font-mono text-slate-400" title={new Date(event.ts).toLocaleString()}>
                  {shortTime(event.ts)}
                </span>
                <span role="cell" className="truncate font-mono text-slate-100">
                  {event.type}
                </span>
                <span role="cell" className="truncate font-mono">
                  {event.actor ?? ''}
                </span>
                <span role="cell" className="truncate font-mono">
                  {event.subject ?? ''}
                </span>
                <span role="cell" className="flex min-w-0 items-center gap-2">
                  <span className="truncate text-slate-300">{summary(event)}</span>
                  {trace && (
                    <button
                      type="button"
                      className="ml-auto shrink-0 rounded border border-slate-700 px-1.5 text-[11px] text-sky-300 hover:bg-slate-800"
                      onClick={(e) => {
                        e.stopPropagation();
                        onTrail(trace);
                      }}
                    >
                      Trail
                    </button>
                  )}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function EventDetail({ event }: { event?: AuditEvent }) {
  if (!event) return <p className="text-xs text-slate-500">Select an event to see its record.</p>;
  return (
    <section aria-label={`Audit event ${event.id}`} className="flex min-w-0 flex-col gap-1 text-xs">
      <h3 className="font-mono text-slate-200">
        #{event.id} {event.type}
      </h3>
      <pre className="max-h-[50vh] overflow-auto whitespace-pre-wrap break-words rounded bg-slate-950 p-2 font-mono text-[11px] text-slate-300">
        {JSON.stringify(event, null, 2)}
      </pre>
    </section>
  );
}
