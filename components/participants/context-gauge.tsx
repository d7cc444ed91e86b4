'use client';

import { useCallback } from 'react';
import { useThrottledSpace } from '@/components/watch/use-throttled-space';
import { telemetryOf, type GaugeLevel, type SpaceStoreState } from '@/lib/store';

/** A gauge redraws at most this often: a context window fills over seconds, and every participant card has one. */
const GAUGE_REFRESH_MS = 500;

const LEVEL: Record<GaugeLevel, { bar: string; text: string; word: string }> = {
  green: { bar: 'bg-emerald-500', text: 'text-emerald-300', word: 'ok' },
  amber: { bar: 'bg-amber-400', text: 'text-amber-300', word: 'high' },
  red: { bar: 'bg-red-500', text: 'text-red-300', word: 'critical' },
};

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const full = new Intl.NumberFormat('en');

/**
 * A participant's context window usage from its latest `participant/status` (tokens / max_tokens): green below
 * 70 %, amber below 90 %, red above, as a `meter` whose text also names the level (colour is never the only cue).
 */
export function ContextGauge({ participant }: { participant: string }) {
  const telemetry = useThrottledSpace(
    useCallback((s: SpaceStoreState) => telemetryOf(s, participant), [participant]),
    GAUGE_REFRESH_MS,
  );
  const gauge = telemetry?.gauge;
  const stale = telemetry?.stale ?? false;
  const reported = telemetry?.latest.payload.messages_in_context;
  const messages = typeof reported === 'number' ? reported : undefined;

  if (!gauge) return <p className="text-xs text-slate-500">No context report yet</p>;
  const percent = Math.round(gauge.ratio * 100);
  const level = LEVEL[gauge.level];
  const text = `${full.format(gauge.tokens)} of ${full.format(gauge.maxTokens)} tokens, ${percent}% (${level.word})`;
  return (
    <div className="flex flex-col gap-1">
      <div
        role="meter"
        aria-label={`Context usage of ${participant}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
        data-level={gauge.level}
        className="h-1.5 w-full overflow-hidden rounded-full bg-slate-800"
      >
        <div className={`h-full rounded-full ${level.bar}`} style={{ width: `${Math.min(100, percent)}%` }} />
      </div>
      <p className="flex flex-wrap items-baseline gap-x-2 text-xs text-slate-400">
        <span className={`font-medium ${level.text}`}>
          {percent}% · {level.word}
        </span>
        <span title={`${full.format(gauge.tokens)} / ${full.format(gauge.maxTokens)} tokens`}>
          {compact.format(gauge.tokens)} / {compact.format(gauge.maxTokens)} tokens
        </span>
        {messages !== undefined && (
          <span>
            {full.format(messages)} {messages === 1 ? 'message' : 'messages'}
          </span>
        )}
        {stale && (
          <span className="text-amber-300" title="It has not reported its status for over a minute: these numbers may be out of date.">
            no recent report
          </span>
        )}
      </p>
    </div>
  );
}
