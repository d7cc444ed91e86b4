'use client';

import { memo } from 'react';
import type { LogEntry } from '@/lib/store';
import { correlationIds } from '@/lib/sdk/model/store-envelope';
import { preciseTime } from './format-time';
import { envelopeSummary, kindTone, shortId } from './envelope-summary';
import { SecretMask, useMaskedValue } from './revealed-secrets';

const LINK =
  'rounded border border-slate-700 bg-slate-900 px-1.5 py-0.5 font-mono text-[11px] text-sky-300 hover:bg-slate-800 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';

/**
 * One envelope of the log: a toggle showing time, kind, route and a gist; its correlation ids as links up the
 * chain; expanded, the pretty JSON and links down the chain (the envelopes that name it).
 */
export const LogRow = memo(function LogRow({
  entry,
  expanded,
  highlighted,
  replies,
  onToggle,
  onJump,
}: {
  entry: LogEntry;
  expanded: boolean;
  highlighted: boolean;
  /** Ids of the envelopes correlated to this one (only looked up for expanded rows). */
  replies?: readonly string[];
  onToggle: (id: string) => void;
  onJump: (id: string) => void;
}) {
  const e = entry.envelope;
  // Secrets show masked (`sk-…abcd`) unless an operator revealed this envelope, which the audit log records.
  const { shown, secret } = useMaskedValue(e.id, e);
  const parents = correlationIds(e);
  return (
    <div
      className={`border-b border-slate-800/70 px-2 py-1 text-xs transition-colors ${highlighted ? 'bg-amber-900/30 ring-2 ring-inset ring-amber-400' : ''}`}
    >
      <button
        type="button"
        data-row-toggle
        aria-expanded={expanded}
        onClick={() => onToggle(e.id)}
        className="flex w-full min-w-0 flex-wrap items-baseline gap-x-2 rounded text-left focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
      >
        <span aria-hidden="true" className={`text-slate-500 ${expanded ? 'rotate-90' : ''} inline-block transition-transform`}>
          ▸
        </span>
        <time className="font-mono text-slate-500" dateTime={new Date(entry.at).toISOString()}>
          {preciseTime(entry.at)}
        </time>
        <span className={`rounded border px-1 font-mono ${kindTone(e.kind)}`}>{e.kind}</span>
        <span className="font-mono text-slate-300">
          {e.from}
          {e.to && e.to.length > 0 && <span className="text-slate-500"> → {e.to.join(', ')}</span>}
        </span>
        <span className="min-w-0 basis-full truncate pl-4 text-slate-400 sm:flex-1 sm:basis-0 sm:pl-0">{envelopeSummary(shown)}</span>
      </button>
      {secret && (
        <div className="mt-0.5 pl-4">
          <SecretMask envelopeId={e.id} what="envelope" />
        </div>
      )}
      {(parents.length > 0 || e.context) && (
        <div className="mt-0.5 flex flex-wrap items-center gap-1 pl-4 text-[11px] text-slate-500">
          {parents.map((id) => (
            <button key={id} type="button" className={LINK} onClick={() => onJump(id)} title={id} aria-label={`Jump to parent envelope ${id}`}>
              ↩ {shortId(id)}
            </button>
          ))}
          {e.context && (
            // A context names the envelope that opened it (e.g. a reasoning/start); its last path segment is that id.
            <button type="button" className={LINK} onClick={() => onJump(e.context!.split('/').pop()!)} title={e.context}>
              {/* Named by what it shows (a shortened context reads the same to a screen reader as on screen). */}
              <span className="sr-only">Jump to </span>context {e.context.length > 24 ? `…${e.context.slice(-12)}` : e.context}
            </button>
          )}
        </div>
      )}
      {expanded && (
        <div className="mt-1 flex flex-col gap-1 pl-4">
          <p className="font-mono text-[11px] text-slate-500">id {e.id}</p>
          <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-950 p-2 font-mono text-[11px] text-slate-200">
            {JSON.stringify(shown, null, 2)}
          </pre>
          {replies && replies.length > 0 && (
            <div className="flex flex-wrap items-center gap-1 text-[11px] text-slate-500">
              Replies:
              {replies.map((id) => (
                <button key={id} type="button" className={LINK} onClick={() => onJump(id)} title={id} aria-label={`Jump to reply ${id}`}>
                  ↪ {shortId(id)}
                </button>
              ))}
            </div>
          )}
        </div>
      )}
    </div>
  );
});
