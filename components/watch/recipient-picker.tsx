'use client';

import type { RosterEntry } from './use-participant-roster';

const PILL =
  'inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-2 py-0.5 text-xs has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-400';
const PILL_ON = 'border-sky-700 bg-sky-900/60 text-sky-100';
const PILL_OFF = 'border-slate-700 bg-slate-900 text-slate-300 hover:bg-slate-800';

/** Who a chat goes to: everyone (no `to`), or the participants ticked. */
export function RecipientPicker({
  options,
  selected,
  onChange,
}: {
  options: readonly RosterEntry[];
  selected: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const everyone = selected.length === 0;
  const toggle = (id: string) => onChange(selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id]);
  return (
    <fieldset className="flex flex-wrap items-center gap-1.5">
      <legend className="float-left mr-1 text-xs text-slate-400">To</legend>
      <label className={`${PILL} ${everyone ? PILL_ON : PILL_OFF}`}>
        <input type="checkbox" className="accent-sky-500" checked={everyone} onChange={() => onChange([])} />
        Everyone
      </label>
      {options.map((p) => (
        <label key={p.id} className={`${PILL} ${selected.includes(p.id) ? PILL_ON : PILL_OFF}`}>
          <input type="checkbox" className="accent-sky-500" checked={selected.includes(p.id)} onChange={() => toggle(p.id)} />
          <span className="font-mono">{p.id}</span>
          {!p.online && <span className="text-slate-500">(offline)</span>}
        </label>
      ))}
    </fieldset>
  );
}
