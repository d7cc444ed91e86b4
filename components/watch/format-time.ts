// One formatter, built once: `toLocaleTimeString` builds an ICU formatter per call, far too slow for chart ticks
// and log rows redrawn several times a second.
const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** Wall-clock time with seconds, e.g. `14:03:07`. */
export function clockTime(ms: number): string {
  return CLOCK.format(ms);
}

/** Wall-clock time with milliseconds, e.g. `14:03:07.042` (the log orders envelopes within a second). */
export function preciseTime(ms: number): string {
  return `${CLOCK.format(ms)}.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}`;
}

/** How long ago, coarsely: `just now`, `12 s ago`, `3 min ago`, `2 h ago`. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 2) return 'just now';
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}
