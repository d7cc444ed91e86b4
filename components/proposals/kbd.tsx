'use client';

/** A keyboard-shortcut hint; hidden on narrow screens, where there is rarely a keyboard. */
export function Kbd({ children }: { children: string }) {
  return (
    <kbd aria-hidden="true" className="hidden rounded border border-current/30 px-1 font-mono text-[10px] leading-4 opacity-70 sm:inline">
      {children}
    </kbd>
  );
}
