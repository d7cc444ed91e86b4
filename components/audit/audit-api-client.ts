/** What the operator filters by; empty fields filter nothing. */
export interface AuditFilter {
  /** Comma-separated event types. */
  type: string;
  /** Actor or subject. */
  participant: string;
  actor: string;
  /** A proposal's id: its trail. */
  trace: string;
  /** Free text anywhere in the event. */
  q: string;
  /** `datetime-local` values (the browser's time zone). */
  since: string;
  until: string;
}

export const EMPTY_AUDIT_FILTER: AuditFilter = { type: '', participant: '', actor: '', trace: '', q: '', since: '', until: '' };

/** The query string of a filter (times as ISO instants), plus paging. */
export function auditQuery(filter: AuditFilter, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const key of ['type', 'participant', 'actor', 'trace', 'q'] as const) if (filter[key].trim()) params.set(key, filter[key].trim());
  for (const key of ['since', 'until'] as const) {
    const time = filter[key] ? new Date(filter[key]) : undefined;
    if (time && !Number.isNaN(time.getTime())) params.set(key, time.toISOString());
  }
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return params.toString();
}

/** Reads one audit endpoint of the space with the signed-in participant's token; rejects with the server's message. */
export async function fetchAudit<T>(space: string, token: string, path: '' | '/verify' | '/export', query = ''): Promise<T> {
  const response = await fetch(`/api/spaces/${encodeURIComponent(space)}/audit${path}${query ? `?${query}` : ''}`, {
    headers: { Authorization: `Bearer ${token}` },
    cache: 'no-store',
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(typeof body.message === 'string' ? body.message : `HTTP ${response.status}`);
  }
  return (path === '/export' ? response.text() : response.json()) as Promise<T>;
}
