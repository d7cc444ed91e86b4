'use client';

import { useEffect, useState } from 'react';

interface Health {
  status: string;
  uptime_s: number;
  spaces: { id: string; participants: number; connected: number }[];
}

/** Polls the gateway's `/healthz` so the page shows live spaces and connection counts. */
const POLL_INTERVAL_MS = 2000;

export function GatewayStatus() {
  const [health, setHealth] = useState<Health>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let cancelled = false;
    const poll = async () => {
      try {
        const res = await fetch('/healthz', { cache: 'no-store' });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const body = (await res.json()) as Health;
        if (!cancelled) {
          setHealth(body);
          setError(undefined);
        }
      } catch (e) {
        if (!cancelled) setError((e as Error).message);
      }
    };
    void poll();
    const timer = setInterval(poll, POLL_INTERVAL_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, []);

  return (
    <section aria-labelledby="gateway-heading" className="mt-6 rounded-lg border border-slate-800 p-4">
      <h2 id="gateway-heading" className="text-lg font-medium">
        Gateway{' '}
        <span role="status" className={error ? 'text-red-400' : health ? 'text-emerald-400' : 'text-slate-400'}>
          {error ? `unreachable (${error})` : health ? 'online' : 'connecting…'}
        </span>
      </h2>
      {health && (
        <table className="mt-3 w-full text-left text-sm">
          <caption className="sr-only">Spaces served by this gateway</caption>
          <thead className="text-slate-400">
            <tr>
              <th scope="col" className="py-1">
                Space
              </th>
              <th scope="col">Participants</th>
              <th scope="col">Connected</th>
            </tr>
          </thead>
          <tbody>
            {health.spaces.map((s) => (
              <tr key={s.id} className="border-t border-slate-800">
                <td className="py-1 font-mono">{s.id}</td>
                <td>{s.participants}</td>
                <td>{s.connected}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
