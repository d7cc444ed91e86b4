'use client';

import { useEffect, useState } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { AuditEvent, AuditPage } from '@/lib/protocol';
import { auditQuery, fetchAudit, type AuditFilter } from './audit-api-client';

/** How often an open audit view asks for events newer than the newest it has. */
const AUDIT_POLL_MS = 2_000;
/** The newest events loaded when a filter is set, and the most the view keeps (older ones: export). */
const AUDIT_PAGE = 500;

/**
 * The events matching `filter`, newest first, kept live: the newest page when the filter changes, then every
 * `AUDIT_POLL_MS` what came after the newest one seen. `error` is the server's refusal (e.g. not an operator).
 */
export function useAuditEvents(filter: AuditFilter, enabled: boolean): { events: AuditEvent[]; error?: string; loading: boolean } {
  const { space, token } = useSpaceSession();
  const [state, setState] = useState<{ events: AuditEvent[]; error?: string; loading: boolean }>({ events: [], loading: true });

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let newest = 0;
    let first = true;
    setState({ events: [], loading: true });
    const load = async () => {
      try {
        const page = { limit: String(AUDIT_PAGE) };
        const extra = first ? { ...page, order: 'desc' } : { ...page, order: 'asc', after_id: String(newest) };
        const { events } = await fetchAudit<AuditPage>(space, token, '', auditQuery(filter, extra));
        if (!live) return;
        const fresh = first ? events : events.reverse(); // newest first either way
        first = false;
        if (fresh.length > 0) newest = Math.max(newest, fresh[0].id);
        setState((current) => ({ events: [...fresh, ...current.events].slice(0, AUDIT_PAGE), loading: false }));
      } catch (error) {
        if (live) setState((current) => ({ ...current, loading: false, error: error instanceof Error ? error.message : String(error) }));
      }
      if (live) timer = setTimeout(load, AUDIT_POLL_MS);
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [enabled, space, token, filter]);

  return state;
}
