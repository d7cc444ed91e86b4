'use client';

import { useEffect, useRef } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { Proposal } from '@/lib/store';
import { toolInfo } from './store-access';

const RETRY_AFTER_MS = 30_000;

/**
 * Asks a target for its tools (`tools/list`, via the SDK's discovery) when a pending proposal names a tool the
 * store does not know yet — e.g. registered after the target joined — so the risk badge is never left unknown for
 * want of asking. At most once per target per RETRY_AFTER_MS, and only when I may send the request directly.
 */
export function useToolDiscovery(pending: readonly Proposal[]) {
  const { participant, store } = useSpaceSession();
  const asked = useRef(new Map<string, number>());

  useEffect(() => {
    const state = store.getState();
    const now = Date.now();
    for (const p of pending) {
      const target = p.target;
      if (!target || !p.toolName || toolInfo(state, target, p.toolName)) continue;
      if (now - (asked.current.get(target) ?? -Infinity) < RETRY_AFTER_MS) continue;
      if (!participant.canSend('mcp/request', { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} })) continue;
      asked.current.set(target, now);
      participant.discovery.discover(target).catch(() => undefined); // the store shows whatever tools/list answers
    }
  }, [pending, participant, store]);
}
