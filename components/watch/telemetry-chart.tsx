'use client';

import { memo, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { clockTime } from './format-time';
import { fieldColor, fieldLabel, formatCompact, formatNumber, type ChartGroup } from './telemetry-fields';

type Row = { at: number } & Record<string, number>;

/** Below this many points each sample gets a dot (a single report would otherwise draw nothing). */
const DOTS_UNTIL = 30;
/** A small chart is ~300 px wide: more points than this only cost render time, so longer series are thinned. */
const MAX_POINTS = 150;

// Recharts 3 keeps chart settings in a store and re-renders when a prop's identity changes, so every object and
// function prop is a module constant rather than an inline literal.
const MARGIN = { top: 4, right: 8, bottom: 0, left: 0 };
const X_DOMAIN = ['dataMin', 'dataMax'];
const AXIS_TICK = { fill: '#94a3b8', fontSize: 10 };
const TOOLTIP_STYLE = { background: '#020617', border: '1px solid #334155', borderRadius: 6, fontSize: 12 };
const TOOLTIP_LABEL_STYLE = { color: '#cbd5e1' };
const DOT = { r: 2 };
const timeTick = (v: number) => clockTime(v);
const valueTick = (v: number) => formatCompact(v);
const tooltipLabel = (v: unknown) => clockTime(Number(v));
const tooltipValue = (value: unknown, name: unknown) => [formatNumber(Number(value)), String(name)] as [string, string];

/** Every k-th row, always keeping the newest. */
function thin(rows: readonly Row[]): readonly Row[] {
  if (rows.length <= MAX_POINTS) return rows;
  const step = Math.ceil(rows.length / MAX_POINTS);
  const out: Row[] = [];
  for (let i = (rows.length - 1) % step; i < rows.length; i += step) out.push(rows[i]);
  return out;
}

/** One small-multiple chart of a participant's status fields over time (already throttled by the caller). */
export const TelemetryChart = memo(function TelemetryChart({ group, rows }: { group: ChartGroup; rows: readonly Row[] }) {
  const data = useMemo(() => thin(rows) as Row[], [rows]);
  const latest = rows.at(-1);
  const summary = group.fields
    .map((f) => (latest?.[f] !== undefined ? `${fieldLabel(f)} ${formatNumber(latest[f])}` : undefined))
    .filter(Boolean)
    .join(', ');
  return (
    <figure className="min-w-0 rounded-md border border-slate-800 bg-slate-950/60 p-2">
      <figcaption className="mb-1 text-xs font-medium text-slate-300">
        {group.title}
        <span className="sr-only">{`, ${rows.length} reports; latest: ${summary}`}</span>
      </figcaption>
      <div className="h-28" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={MARGIN}>
            <CartesianGrid stroke="#1e293b" vertical={false} />
            <XAxis
              dataKey="at"
              type="number"
              scale="time"
              domain={X_DOMAIN}
              tickFormatter={timeTick}
              tick={AXIS_TICK}
              stroke="#334155"
              minTickGap={48}
            />
            <YAxis width={40} tick={AXIS_TICK} stroke="#334155" tickFormatter={valueTick} allowDecimals={false} />
            <Tooltip
              contentStyle={TOOLTIP_STYLE}
              labelStyle={TOOLTIP_LABEL_STYLE}
              labelFormatter={tooltipLabel}
              formatter={tooltipValue}
              isAnimationActive={false}
            />
            {group.fields.map((f) => (
              <Line
                key={f}
                dataKey={f}
                name={fieldLabel(f)}
                type="linear"
                stroke={fieldColor(f)}
                strokeWidth={f === 'max_tokens' ? 1 : 2}
                strokeDasharray={f === 'max_tokens' ? '4 3' : undefined}
                dot={data.length <= DOTS_UNTIL ? DOT : false}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
});
