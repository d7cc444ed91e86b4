'use client';

import { memo, useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { clockTime } from './format-time';
import { fieldColor, fieldLabel, formatCompact, formatNumber, type ChartGroup } from './telemetry-fields';

type Row = { at: number } & Record<string, number>;

/** Plot area height (px), legend excluded. */
const CHART_HEIGHT = 112;
/** Below this many points each sample gets a dot (a single report would otherwise draw nothing). */
const DOTS_UNTIL = 30;
/** A small chart is ~300 px wide: more points than this only cost drawing time, so longer series are thinned. */
const MAX_POINTS = 150;
const AXIS_FONT = '10px ui-sans-serif, system-ui, sans-serif';
const AXIS_STROKE = '#94a3b8'; // slate-400
const GRID_STROKE = '#1e293b'; // slate-800
const TICK_STROKE = '#334155'; // slate-700

/** Every k-th row, always keeping the newest. */
function thin(rows: readonly Row[]): readonly Row[] {
  if (rows.length <= MAX_POINTS) return rows;
  const step = Math.ceil(rows.length / MAX_POINTS);
  const out: Row[] = [];
  for (let i = (rows.length - 1) % step; i < rows.length; i += step) out.push(rows[i]);
  return out;
}

/** The newest non-null value of a column. */
function lastValue(column: ArrayLike<number | null | undefined>): number | null {
  for (let i = column.length - 1; i >= 0; i--) {
    const v = column[i];
    if (v != null) return v;
  }
  return null;
}

/** A legend cell: the value under the cursor, or the newest one while the cursor is elsewhere. */
function legendValue(format: (v: number) => string) {
  return (u: uPlot, v: number | null, seriesIdx: number, idx: number | null) => {
    const value = idx == null ? lastValue(u.data[seriesIdx]) : v;
    return value == null ? '–' : format(value);
  };
}

/** uPlot's columnar data: the times, then one column per field (null where a report lacked the field). */
function toColumns(rows: readonly Row[], fields: readonly string[]): uPlot.AlignedData {
  return [rows.map((r) => r.at), ...fields.map((f) => rows.map((r) => r[f] ?? null))];
}

function chartOptions(group: ChartGroup, width: number): uPlot.Options {
  return {
    width,
    height: CHART_HEIGHT,
    ms: 1, // times are epoch milliseconds, as the store keeps them
    padding: [6, 24, 0, 0], // room for the last time label, centred on the plot's right edge
    cursor: { drag: { x: false, y: false }, points: { size: 5 } },
    legend: { live: true },
    scales: {
      x: { time: true },
      // Counts and durations read best from zero; a flat series still gets some height.
      y: { range: (_u, min, max) => uPlot.rangeNum(Math.min(0, min ?? 0), Math.max(1, max ?? 1), 0.1, true) },
    },
    axes: [
      {
        font: AXIS_FONT,
        stroke: AXIS_STROKE,
        space: 60,
        grid: { show: false },
        ticks: { stroke: TICK_STROKE, size: 4 },
        values: (_u, splits) => splits.map((v) => clockTime(v)),
      },
      {
        font: AXIS_FONT,
        stroke: AXIS_STROKE,
        size: 40,
        space: 24,
        grid: { stroke: GRID_STROKE, width: 1 },
        ticks: { show: false },
        values: (_u, splits) => splits.map((v) => formatCompact(v)),
      },
    ],
    series: [
      { label: 'Time', value: legendValue(clockTime) },
      ...group.fields.map((f) => ({
        label: fieldLabel(f),
        stroke: fieldColor(f),
        width: f === 'max_tokens' ? 1 : 2,
        dash: f === 'max_tokens' ? [4, 3] : undefined,
        spanGaps: true,
        points: { show: (u: uPlot) => u.data[0].length <= DOTS_UNTIL, size: 4 },
        value: legendValue(formatNumber),
      })),
    ],
  };
}

/**
 * One small-multiple chart of a participant's status fields over time (already throttled by the caller), drawn
 * on a canvas by uPlot: redrawing an SVG chart library's component tree twice a second cost more main-thread time
 * than the rest of the control room under load. The legend under the plot reads out the values at the cursor
 * (the newest ones otherwise).
 */
export const TelemetryChart = memo(function TelemetryChart({ group, rows }: { group: ChartGroup; rows: readonly Row[] }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | undefined>(undefined);
  const data = useMemo(() => toColumns(thin(rows), group.fields), [rows, group.fields]);
  const dataRef = useRef(data);
  dataRef.current = data;

  // One plot per set of series; it follows its box's width.
  useEffect(() => {
    const host = hostRef.current!;
    const plot = new uPlot(chartOptions(group, host.clientWidth), dataRef.current, host);
    plotRef.current = plot;
    const observer = new ResizeObserver(([entry]) => {
      const width = Math.floor(entry.contentRect.width);
      if (width > 0 && width !== plot.width) plot.setSize({ width, height: CHART_HEIGHT });
    });
    observer.observe(host);
    return () => {
      observer.disconnect();
      plot.destroy();
      plotRef.current = undefined;
    };
  }, [group]);

  useEffect(() => {
    plotRef.current?.setData(data); // also refreshes the legend
  }, [data]);

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
      <div ref={hostRef} className="telemetry-chart w-full min-w-0" aria-hidden="true" />
    </figure>
  );
});
