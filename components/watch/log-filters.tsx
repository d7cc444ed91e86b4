'use client';

import { useId } from 'react';
import { fieldClass } from './panel-frame';
import type { RosterEntry } from './use-participant-roster';

/** What the filter inputs hold (empty = no constraint). */
export interface LogFilterDraft {
  kind: string;
  participant: string;
  context: string;
  text: string;
}

export const NO_FILTER: LogFilterDraft = { kind: '', participant: '', context: '', text: '' };

/** Kind families offered as suggestions; any prefix may be typed. */
const KIND_PREFIXES = [
  'chat',
  'mcp/',
  'mcp/proposal',
  'mcp/request',
  'reasoning/',
  'participant/',
  'participant/status',
  'capability/',
  'space/',
  'stream/',
  'system/',
  'system/error',
];

/** The log's filters: kind prefix, participant (from or to), context, free text. */
export function LogFilters({
  value,
  onChange,
  participants,
}: {
  value: LogFilterDraft;
  onChange: (next: LogFilterDraft) => void;
  participants: readonly RosterEntry[];
}) {
  const id = useId();
  const set = (key: keyof LogFilterDraft) => (e: { target: { value: string } }) => onChange({ ...value, [key]: e.target.value });
  const labelClass = 'flex min-w-0 flex-col gap-0.5 text-[11px] text-slate-400';
  return (
    <div role="search" aria-label="Filter envelopes" className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-2 xl:grid-cols-4">
      <label className={labelClass}>
        Kind prefix
        <input className={fieldClass} list={`${id}-kinds`} value={value.kind} onChange={set('kind')} placeholder="e.g. mcp/" spellCheck={false} />
        <datalist id={`${id}-kinds`}>
          {KIND_PREFIXES.map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
      </label>
      <label className={labelClass}>
        Participant
        <select className={fieldClass} value={value.participant} onChange={set('participant')}>
          <option value="">Anyone</option>
          {participants.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </label>
      <label className={labelClass}>
        Context
        <input className={fieldClass} value={value.context} onChange={set('context')} placeholder="context id" spellCheck={false} />
      </label>
      <label className={labelClass}>
        Search
        <input className={fieldClass} type="search" value={value.text} onChange={set('text')} placeholder="any text" spellCheck={false} />
      </label>
    </div>
  );
}
