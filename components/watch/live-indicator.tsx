'use client';

/** A pulsing dot and a label, for something still in progress (the pulse stops for reduced-motion users). */
export function LiveIndicator({ label = 'thinking…' }: { label?: string }) {
  return (
    <span className="inline-flex items-center gap-1.5 text-xs font-medium text-sky-300">
      <span className="relative flex h-2 w-2" aria-hidden="true">
        <span className="absolute inline-flex h-full w-full rounded-full bg-sky-400 opacity-75 motion-safe:animate-ping" />
        <span className="relative inline-flex h-2 w-2 rounded-full bg-sky-400" />
      </span>
      {label}
    </span>
  );
}
