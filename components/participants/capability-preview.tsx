'use client';

import { useEffect, useMemo, useState } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import { compileCapabilities, type CapabilityInput } from '@/lib/capabilities';
import type { WireCapability } from '@/lib/protocol';
import type { LogEntry } from '@/lib/store';

/** How many recent envelopes the preview tests, and how often it re-reads them while envelopes stream in. */
const RECENT = 200;
const REFRESH_MS = 1000;
const SHOWN = 6;

/** The last `RECENT` log entries, re-read at most once a second (the log may grow by hundreds a second). */
function useRecentEntries(): readonly LogEntry[] {
  const { store } = useSpaceSession();
  const read = () => store.getState().log.entries.entries().slice(-RECENT);
  const [entries, setEntries] = useState(read);
  useEffect(() => {
    let total = store.getState().log.total;
    const timer = setInterval(() => {
      const next = store.getState().log.total;
      if (next === total) return;
      total = next;
      setEntries(store.getState().log.entries.entries().slice(-RECENT));
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [store]);
  return entries;
}

function summary(entry: LogEntry): string {
  const payload = (entry.envelope.payload ?? {}) as Record<string, unknown>;
  const params = (payload.params ?? {}) as Record<string, unknown>;
  const detail = [payload.method, params.name].filter((v) => typeof v === 'string').join(' ');
  return detail;
}

/** Which recent envelopes these patterns would have allowed (the gateway's matcher, on kind + payload). */
export function CapabilityPreview({ capabilities, recipient }: { capabilities: readonly WireCapability[]; recipient?: string }) {
  const entries = useRecentEntries();
  const matcher = useMemo(() => compileCapabilities(capabilities as CapabilityInput[]), [capabilities]);
  const allowed = useMemo(() => entries.filter((e) => matcher.matches(e.envelope)), [entries, matcher]);
  const byRecipient = recipient ? allowed.filter((e) => e.envelope.from === recipient).length : 0;

  return (
    <section aria-label="Preview against recent envelopes" className="rounded border border-slate-800 bg-slate-950/60 p-2 text-xs">
      <p className="text-slate-300">
        Would have allowed <strong className="text-slate-100">{allowed.length}</strong> of the last {entries.length} envelopes
        {recipient && byRecipient > 0 && (
          <>
            {' '}
            ({byRecipient} sent by {recipient})
          </>
        )}
        .
      </p>
      {allowed.length > 0 && (
        <ul aria-label="Recent envelopes these patterns allow" className="mt-1 flex flex-col gap-0.5">
          {allowed
            .slice(-SHOWN)
            .reverse()
            .map((e) => (
              <li key={e.envelope.id} className="flex min-w-0 gap-2 font-mono text-slate-400">
                <span className="shrink-0 text-sky-300">{e.envelope.kind}</span>
                <span className="shrink-0">{e.envelope.from}</span>
                <span className="truncate">{summary(e)}</span>
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}
