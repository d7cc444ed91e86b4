'use client';

import { useEffect, useRef } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import type { ErrorNotice } from '@/lib/store';

function describe(notice: ErrorNotice): string {
  const parts = [notice.message ?? 'The gateway refused an envelope.'];
  if (notice.attemptedKind) parts.push(`Kind: ${notice.attemptedKind}.`);
  if (notice.retryAfterMs !== undefined) parts.push(`Retry in ${Math.ceil(notice.retryAfterMs / 1000)} s.`);
  return parts.join(' ');
}

/**
 * Turns the gateway's `system/error`s addressed to me into toasts, each once: the queue is drained whenever its
 * sequence number moves (a length could return to the same value between renders and hide a new error).
 * Errors that arrive before this page's first welcome, or are older than it, come with the history catch-up: they
 * answered a previous page's sends, so they are drained without a toast.
 */
export function ErrorToasts() {
  const { store } = useSpaceSession();
  const lastSeq = useSpace((s) => s.errors.lastSeq);
  const firstWelcome = useRef<number | undefined>(undefined);

  useEffect(() => {
    const state = store.getState();
    firstWelcome.current ??= state.connection.welcomedAt;
    const since = firstWelcome.current;
    for (const notice of state.takeErrors()) {
      // Before the first welcome everything is catch-up (the gateway sends nothing else before it).
      if (since === undefined || notice.at < since) continue;
      toast.error(`Refused by the gateway: ${notice.error}`, { id: notice.id, description: describe(notice) });
    }
  }, [lastSeq, store]);

  return null;
}
