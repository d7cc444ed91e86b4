'use client';

import type { CapabilitySummary } from './effective-capabilities';
import { CapabilityLine } from './capability-line';
import { RelativeTime } from './relative-time';

/** The card's capability section: counts at a glance, the lists on demand. */
export function CapabilitySummaryView({ summary }: { summary: CapabilitySummary }) {
  const baseActive = summary.base.filter((b) => !b.revokedBy).length;
  const grantedCount = summary.granted.reduce((n, g) => n + g.capabilities.length, 0);
  const revokedCount = summary.revoked.reduce((n, g) => n + g.capabilities.length, 0) + summary.base.length - baseActive;
  return (
    <details className="group text-xs">
      <summary className="cursor-pointer list-none rounded text-slate-300 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="mr-1 inline-block text-slate-500 transition-transform group-open:rotate-90">
          ▸
        </span>
        Capabilities: {baseActive} base · <span className={grantedCount ? 'text-emerald-300' : ''}>{grantedCount} granted</span>
        {revokedCount > 0 && <span className="text-slate-500"> · {revokedCount} revoked</span>}
      </summary>
      <div className="mt-1.5 flex flex-col gap-2 pl-3">
        <Group title="Base">
          {summary.base.length === 0 && <li className="text-slate-500">none</li>}
          {summary.base.map((b, i) => (
            <li key={i} className="flex flex-col">
              <CapabilityLine capability={b.capability} struck={!!b.revokedBy} />
              {b.revokedBy && (
                <span className="text-slate-500">
                  revoked by {b.revokedBy.by} <RelativeTime at={b.revokedBy.at} />
                </span>
              )}
            </li>
          ))}
        </Group>
        {summary.granted.length > 0 && (
          <Group title="Granted">
            {summary.granted.flatMap(({ grant, capabilities }) =>
              capabilities.map((c, i) => (
                <li key={`${grant.id}-${i}`} className="flex flex-col">
                  <CapabilityLine capability={c} />
                  <span className="text-slate-500">
                    by {grant.granter} <RelativeTime at={grant.at} />
                    {grant.reason && <> · “{grant.reason}”</>}
                    {grant.ack && <> · {grant.ack.status}</>}
                  </span>
                </li>
              )),
            )}
          </Group>
        )}
        {summary.revoked.length > 0 && (
          <Group title="Revoked">
            {summary.revoked.flatMap(({ grant, capabilities }) =>
              capabilities.map((c, i) => (
                <li key={`${grant.id}-${i}`} className="flex flex-col">
                  <CapabilityLine capability={c} struck />
                  <span className="text-slate-500">
                    granted by {grant.granter}
                    {grant.revoked && (
                      <>
                        , revoked by {grant.revoked.by} <RelativeTime at={grant.revoked.at} />
                      </>
                    )}
                  </span>
                </li>
              )),
            )}
          </Group>
        )}
      </div>
    </details>
  );
}

function Group({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div>
      <h4 className="mb-0.5 text-[11px] font-semibold uppercase tracking-wide text-slate-500">{title}</h4>
      <ul className="flex flex-col gap-1">{children}</ul>
    </div>
  );
}
