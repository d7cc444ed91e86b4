'use client';

import { formatAgo } from '@/components/participants/relative-time';
import { useSpace } from '@/components/session/space-session';

/** "4:07" / "1:02:07" for countdowns. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// Only these leaf components subscribe to the store's clock, so a tick re-renders a few spans, not the cards.
const useClock = () => useSpace((s) => s.clock);

/** How long ago `at` was, moving with the store's clock. */
export function Age({ at }: { at: number }) {
  const now = useClock();
  return (
    <time dateTime={new Date(at).toISOString()} title={new Date(at).toLocaleString()} className="tabular-nums">
      {formatAgo(at, Math.max(now, at))}
    </time>
  );
}

/**
 * Time left before a pending proposal expires, shown only when its proposer said how long it waits (`timeout_ms` or
 * `expires_at` in the proposal; the SDK's `mcpRequest` always says): the deadline is the proposal's own time plus
 * that, the same on every screen, and the proposer withdraws it then. Amber, then red under 30 s.
 */
export function Countdown({ deadline, from, proposer }: { deadline: number; from: number; proposer: string }) {
  const now = useClock();
  // The clock ticks once a second, so right after arrival it may still read earlier than `from`.
  const left = Math.min(deadline - now, deadline - from);
  const tone = left < 30_000 ? 'bg-red-950 text-red-300 ring-red-800' : 'bg-amber-950 text-amber-300 ring-amber-800';
  return (
    <span className={`rounded px-1.5 py-px font-medium tabular-nums ring-1 ${tone}`} title={`${proposer} waits this long for a decision, then withdraws it`}>
      expires in {formatCountdown(left)}
    </span>
  );
}
