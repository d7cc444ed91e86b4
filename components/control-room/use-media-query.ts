'use client';

import { useEffect, useState } from 'react';

/** Whether `query` matches now, following changes (false until mounted: the server has no screen). */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(false);
  useEffect(() => {
    const list = window.matchMedia(query);
    setMatches(list.matches);
    const onChange = (event: MediaQueryListEvent) => setMatches(event.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

/** Tailwind's `sm` breakpoint: at and above it the header shows its buttons; below it (a phone) they are in the menu. */
export const WIDE_HEADER = '(min-width: 640px)';
