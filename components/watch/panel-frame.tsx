'use client';

import { useId, type ReactNode } from 'react';

/** The frame every watcher panel shares: a named region with a heading, optional actions and a body. */
export function PanelFrame({
  title,
  badge,
  actions,
  children,
  className = '',
}: {
  title: string;
  badge?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const headingId = useId();
  return (
    // Off screen, a panel's updates cost no style, layout or paint (content-visibility), and on screen they stay
    // inside it (the containment it implies); its last size stands in while skipped.
    <section
      aria-labelledby={headingId}
      className={`flex min-w-0 flex-col gap-2 rounded-lg border border-slate-800 bg-slate-900/40 p-3 [contain-intrinsic-size:auto_24rem] [content-visibility:auto] ${className}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={headingId} className="text-sm font-semibold text-slate-200">
          {title}
        </h2>
        {badge}
        {actions && <div className="ml-auto flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** Shared button looks, so every panel's controls read the same. */
export const buttonClass = {
  primary:
    'rounded-md bg-sky-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-sky-600 disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400',
  secondary:
    'rounded-md border border-slate-700 bg-slate-800 px-2.5 py-1 text-xs font-medium text-slate-200 hover:bg-slate-700 disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400',
  danger:
    'rounded-md border border-red-800 bg-red-950/60 px-2.5 py-1 text-xs font-medium text-red-200 hover:bg-red-900/70 disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-red-400',
} as const;

/** Shared look of text inputs and selects. */
export const fieldClass =
  'rounded-md border border-slate-700 bg-slate-950 px-2 py-1 text-xs text-slate-100 placeholder:text-slate-500 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';
