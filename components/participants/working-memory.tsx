'use client';

import { useCallback } from 'react';
import { useSpace } from '@/components/session/space-session';
import { telemetryOf, type SpaceStoreState } from '@/lib/store';

const count = new Intl.NumberFormat('en');

/**
 * What a participant last said it holds in its working context, in words ("174 tokens and 12 messages"), from its
 * latest `participant/status`; undefined before any report.
 */
export function workingMemoryOf(state: SpaceStoreState, participant: string): string | undefined {
  const latest = telemetryOf(state, participant)?.latest.payload;
  if (!latest) return undefined;
  const tokens = typeof latest.tokens === 'number' ? `${count.format(latest.tokens)} tokens` : undefined;
  const messages =
    typeof latest.messages_in_context === 'number'
      ? `${count.format(latest.messages_in_context)} message${latest.messages_in_context === 1 ? '' : 's'}`
      : undefined;
  const parts = [tokens, messages].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * The sentence every memory-losing confirmation carries, so an operator knows what goes before pressing:
 * "Its working memory — 174 tokens and 12 messages at its last report — is lost."
 */
export function MemoryLoss({ participant, what = 'Its working memory' }: { participant: string; what?: string }) {
  const memory = useSpace(useCallback((s: SpaceStoreState) => workingMemoryOf(s, participant), [participant]));
  return <strong className="font-medium text-amber-200">{memory ? `${what} — ${memory} at its last report — is lost.` : `${what} is lost.`}</strong>;
}
