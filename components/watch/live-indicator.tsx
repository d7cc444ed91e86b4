'use client';

/**
 * A dot and a label, for something still in progress. The dot pulses a few times when it appears, then stays lit:
 * fifty agents thinking at once would otherwise keep fifty animations running, and the browser re-rendering the
 * page every frame for them. No pulse for reduced-motion users.
 */
export function LiveIndicator({ label = 'thinking…' }: { label?: string }) {
  return (
    <span className="inline-flex items-center gap-1.5 text-xs font-medium text-sky-300">
      <span className="relative flex h-2 w-2" aria-hidden="true">
        <span className="absolute inline-flex h-full w-full rounded-full bg-sky-400 opacity-75 motion-safe:animate-ping motion-safe:[animation-iteration-count:3]" />
        <span className="relative inline-flex h-2 w-2 rounded-full bg-sky-400" />
      </span>
      {label}
    </span>
  );
}
