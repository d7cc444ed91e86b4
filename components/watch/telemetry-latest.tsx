'use client';

import { memo, useMemo } from 'react';
import { ContextGauge } from '@/components/participants/context-gauge';
import { maskValue } from '@/lib/secrets/secret-masking';
import type { ParticipantTelemetry } from '@/lib/store';
import { clockTime } from './format-time';
import { ReportAge } from './report-age';
import { fieldLabel, formatNumber } from './telemetry-fields';

/** Tokens first, then the spec's other fields, then the rest in payload order (text fields like `status` last). */
const FIRST = ['tokens', 'messages_in_context', 'latency_ms'];
function rank([key, value]: [string, unknown]): number {
  const i = FIRST.indexOf(key);
  if (i >= 0) return i;
  return typeof value === 'number' ? FIRST.length : FIRST.length + 1;
}

/** The latest status as text: the context gauge, then every field of the payload (tokens against the maximum). */
export const TelemetryLatest = memo(function TelemetryLatest({ telemetry }: { telemetry: ParticipantTelemetry }) {
  const { latest, gauge, stale } = telemetry;
  // A status's text fields are shown masked, like the envelope log (a field named like a secret, a token in text).
  const payload = useMemo(() => maskValue(latest.payload), [latest.payload]);
  const entries = Object.entries(payload)
    .filter(([key, value]) => (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') && !(gauge && key === 'max_tokens'))
    .sort((a, b) => rank(a) - rank(b));
  return (
    <div className="flex flex-col gap-1.5">
      <p className="flex flex-wrap items-center gap-2 text-xs text-slate-400">
        <span>
          Latest report <time dateTime={new Date(latest.at).toISOString()}>{clockTime(latest.at)}</time> (<ReportAge at={latest.at} />)
        </span>
        {stale && (
          <span className="rounded-full bg-amber-900/60 px-2 py-0.5 font-medium text-amber-200" title="No status report for over a minute">
            out of date: no report for over a minute
          </span>
        )}
      </p>
      {gauge && <ContextGauge participant={telemetry.participant} />}
      <dl className={`grid grid-cols-2 gap-x-3 gap-y-1 text-xs sm:grid-cols-4 lg:grid-cols-2`}>
        {entries.map(([key, value]) => (
          <div key={key} className="min-w-0">
            <dt className="truncate text-slate-400">{fieldLabel(key)}</dt>
            <dd className="truncate font-mono tabular-nums text-slate-100">
              {key === 'tokens' && gauge
                ? `${formatNumber(gauge.tokens)} / ${formatNumber(gauge.maxTokens)}`
                : typeof value === 'number'
                  ? formatNumber(value)
                  : String(value)}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
});
