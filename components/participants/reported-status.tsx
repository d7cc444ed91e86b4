'use client';

import { useCallback } from 'react';
import { useThrottledSpace } from '@/components/watch/use-throttled-space';
import { telemetryOf, type SpaceStoreState } from '@/lib/store';

/** Redrawn at most this often, like the gauge beside it. */
const STATUS_REFRESH_MS = 500;

/**
 * What a participant last said it is doing, in its own words: the `status` of its latest `participant/status`
 * ("ready: 14 tools from secure-filesystem-server", "awaiting_approval", "MCP server killed by SIGKILL: restarting in 2 s").
 */
export function ReportedStatus({ participant }: { participant: string }) {
  const status = useThrottledSpace(
    useCallback((s: SpaceStoreState) => telemetryOf(s, participant)?.latest.payload.status, [participant]),
    STATUS_REFRESH_MS,
  );
  if (typeof status !== 'string' || status === '') return null;
  return <p className="break-words text-xs text-slate-300">{status}</p>;
}
