'use client';

import { DERIVED_FROM_ANNOTATIONS } from '@/lib/protocol';
import type { ToolSecurity } from '@/lib/store';

const LEVELS: Record<string, string> = {
  safe: 'border-emerald-700 bg-emerald-950 text-emerald-300',
  moderate: 'border-amber-700 bg-amber-950 text-amber-300',
  dangerous: 'border-red-700 bg-red-950 text-red-300',
};

/** The target tool's MGP risk, as its `tools/list` declared it; "risk unknown" when it declared nothing. */
export function RiskBadge({ risk }: { risk?: ToolSecurity }) {
  const level = risk?.risk_level;
  const tone = (level && LEVELS[level]) ?? 'border-slate-700 bg-slate-900 text-slate-400';
  const source = risk?.source === 'mcp-hints' || risk?.derived_from === DERIVED_FROM_ANNOTATIONS ? ' (from MCP annotations)' : '';
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span
        className={`rounded border px-1.5 py-px text-[11px] font-medium ${tone}`}
        title={level ? `MGP risk level${source}` : 'The tool declared no risk level'}
      >
        {level ? `risk: ${level}` : 'risk unknown'}
      </span>
      {risk?.confirmation_required && (
        <span className="rounded border border-red-800 px-1.5 py-px text-[11px] font-medium text-red-300">confirmation required</span>
      )}
      {risk?.side_effects?.map((effect) => (
        <span key={effect} className="rounded bg-slate-800 px-1.5 py-px text-[11px] text-slate-300" title="Declared side effect">
          {effect}
        </span>
      ))}
    </span>
  );
}
