'use client';

import { memo } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { clockTime } from './format-time';
import { fieldColor, fieldLabel, formatCompact, formatNumber, type ChartGroup } from './telemetry-fields';

/** Below this many points each sample gets a dot (a single report would otherwise draw nothing). */
const DOTS_UNTIL = 30;

const AXIS_TICK = { fill: '#94a3b8', fontSize: 10 };
const TOOLTIP_STYLE = { background: '#020617', border: '1px solid #334155', borderRadius: 6, fontSize: 12 };

/** One small-multiple chart of a participant's status fields over time (already throttled by the caller). */
export const TelemetryChart = memo(function TelemetryChart({
  group,
  rows,
}: {
  group: ChartGroup;
  rows: readonly ({ at: number } & Record<string, number>)[];
}) {
  const latest = rows.at(-1);
  const summary = group.fields
    .map((f) => (latest?.[f] !== undefined ? `${fieldLabel(f)} ${formatNumber(latest[f])}` : undefined))
    .filter(Boolean)
    .join(', ');
  return (
    <figure className="min-w-0 rounded-md border border-slate-800 bg-slate-950/60 p-2">
      <figcaption className="mb-1 flex items-baseline justify-between gap-2 text-xs">
        <span className="font-medium text-slate-300">{group.title}</span>
        <span className="sr-only">{`, ${rows.length} reports; latest: ${summary}`}</span>
      </figcaption>
      <div className="h-28" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows as ({ at: number } & Record<string, number>)[]} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#1e293b" vertical={false} />
            <XAxis
              dataKey="at"
              type="number"
              scale="time"
              domain={['dataMin', 'dataMax']}
              tickFormatter={(v: number) => clockTime(v)}
              tick={AXIS_TICK}
              stroke="#334155"
              minTickGap={48}
            />
            <YAxis width={40} tick={AXIS_TICK} stroke="#334155" tickFormatter={(v: number) => formatCompact(v)} allowDecimals={false} />
            <Tooltip
              contentStyle={TOOLTIP_STYLE}
              labelStyle={{ color: '#cbd5e1' }}
              labelFormatter={(v) => clockTime(Number(v))}
              formatter={(value, name) => [formatNumber(Number(value)), name]}
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
                dot={rows.length <= DOTS_UNTIL ? { r: 2 } : false}
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
