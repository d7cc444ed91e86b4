'use client';

import { useSpace } from '@/components/session/space-session';

/** "42s", "2m", "3h", "2d" for a span of `s` seconds. */
function span(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** "just now", "42s ago", "2m ago", "3h ago", "2d ago". */
export function formatAgo(at: number, now: number): string {
  const s = Math.max(0, Math.floor((now - at) / 1000));
  return s < 5 ? 'just now' : `${span(s)} ago`;
}

/** "now", "in 42s", "in 2m", "in 3h", "in 2d": a time still to come (an expiry). */
export function formatIn(at: number, now: number): string {
  const s = Math.max(0, Math.floor((at - now) / 1000));
  return s < 5 ? 'now' : `in ${span(s)}`;
}

/**
 * A relative time that follows the store's clock (one tick a second): only this small element re-renders
 * each second, never the card around it. The absolute time is its `title` and `dateTime`. `future` for a time
 * still to come ("in 42m"); otherwise a time just after the clock's tick reads "just now".
 */
export function RelativeTime({ at, future = false }: { at: number; future?: boolean }) {
  const now = useSpace((s) => s.clock);
  const date = new Date(at);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {future ? formatIn(at, now) : formatAgo(at, Math.max(now, at))}
    </time>
  );
}
