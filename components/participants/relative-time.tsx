'use client';

import { useSpace } from '@/components/session/space-session';

/** "just now", "42s ago", "2m ago", "3h ago", "2d ago". */
export function formatAgo(at: number, now: number): string {
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/**
 * A relative time that follows the store's clock (one tick a second): only this small element re-renders
 * each second, never the card around it.
 */
export function RelativeTime({ at }: { at: number }) {
  const now = useSpace((s) => s.clock);
  const date = new Date(at);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {formatAgo(at, Math.max(now, at))}
    </time>
  );
}
