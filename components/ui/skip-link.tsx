'use client';

import type { MouseEvent } from 'react';

/**
 * The page's first Tab stop, shown only while focused: "Skip to …" moves focus past the header and the rail to
 * `target` (a region's first focusable item, e.g. the oldest proposal, else its heading). It focuses rather than
 * following a `#fragment`, so the address bar (which may carry a sign-in) is left alone.
 */
export function SkipLink({ target, label, first }: { target: string; label: string; first?: string }) {
  const skip = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    const region = document.getElementById(target);
    const into = (first && region?.closest('section')?.querySelector<HTMLElement>(first)) || region;
    if (!into) return;
    if (into.tabIndex < 0 && !into.hasAttribute('tabindex')) into.setAttribute('tabindex', '-1');
    into.focus();
    into.scrollIntoView({ block: 'nearest' });
  };
  return (
    <a
      href={`#${target}`}
      onClick={skip}
      className="skip-link rounded bg-sky-700 px-3 py-2 text-sm font-medium text-white shadow-lg focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-300"
    >
      {label}
    </a>
  );
}
