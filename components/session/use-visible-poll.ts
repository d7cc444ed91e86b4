'use client';

import { useEffect } from 'react';

/**
 * Runs `poll` now and then every `intervalMs` while the tab is visible (a hidden one asks nobody), one at a time; a
 * failed poll is retried by the next. `live()` turns false once the caller is gone or `poll` changed, so an answer
 * that arrives after that is dropped. Pass a stable `poll` (a new one restarts the loop).
 */
export function useVisiblePoll(poll: (live: () => boolean) => Promise<void>, intervalMs: number): void {
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (document.visibilityState === 'visible') await poll(() => live).catch(() => undefined);
      if (live) timer = setTimeout(run, intervalMs);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [poll, intervalMs]);
}
