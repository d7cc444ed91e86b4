'use client';

import { useSpace } from '@/components/session/space-session';

const LABELS = {
  disconnected: { text: 'Disconnected — reconnecting', className: 'bg-red-900/60 text-red-200' },
  connecting: { text: 'Connecting…', className: 'bg-amber-900/60 text-amber-200' },
  connected: { text: 'Joining…', className: 'bg-amber-900/60 text-amber-200' },
  ready: { text: 'Live', className: 'bg-emerald-900/60 text-emerald-200' },
  error: { text: 'Connection refused', className: 'bg-red-900/60 text-red-200' },
} as const;

/** Always-visible connection state; reconnects are automatic, so this only informs. */
export function ConnectionBadge() {
  const connection = useSpace((s) => s.connection);
  const label = LABELS[connection.status];
  return (
    <span
      role="status"
      aria-live="polite"
      data-testid="connection-status"
      className={`shrink-0 whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-medium ${label.className}`}
    >
      {label.text}
      {connection.status === 'error' && connection.detail ? `: ${connection.detail}` : ''}
    </span>
  );
}
