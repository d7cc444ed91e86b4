'use client';

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import type { ProcessReport } from '@/lib/gateway/process-control';

/** How often the rail asks the server how launched participants' processes are doing (while the tab is visible). */
const PROCESS_POLL_MS = 2_000;

/** A launched participant's process, as `GET /api/spaces/{space}/processes` reports it. */
export type LaunchedProcess = ProcessReport;

export type ProcessAction = 'start' | 'stop' | 'restart';

interface LaunchedProcesses {
  byId: ReadonlyMap<string, LaunchedProcess>;
  /** Asks the server; resolves with the process as it is after the action, or rejects with the server's message. */
  act(participantId: string, action: ProcessAction): Promise<LaunchedProcess>;
}

const Context = createContext<LaunchedProcesses>({ byId: new Map(), act: () => Promise.reject(new Error('no process provider')) });

/** The participants the server launches, whether or not they ever joined. */
export function useLaunchedIds(): string[] {
  const { byId } = useContext(Context);
  return useMemo(() => [...byId.keys()], [byId]);
}

/** The process of a participant the server launches, or undefined for one it does not. */
export function useLaunchedProcess(participantId: string): { process?: LaunchedProcess; act: LaunchedProcesses['act'] } {
  const { byId, act } = useContext(Context);
  return { process: byId.get(participantId), act };
}

/**
 * Polls the server's process endpoint for the space and shares the answer with every participant card, so one
 * request serves the whole rail. The server decides what each caller may see and do; this only asks.
 */
export function LaunchedProcessesProvider({ children }: { children: ReactNode }) {
  const { space, token } = useSpaceSession();
  const [byId, setById] = useState<ReadonlyMap<string, LaunchedProcess>>(new Map());
  const url = `/api/spaces/${encodeURIComponent(space)}/processes`;

  const request = useCallback(
    async (path: string, method: 'GET' | 'POST') => {
      const response = await fetch(`${url}${path}`, { method, headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(typeof body.message === 'string' ? body.message : `HTTP ${response.status}`);
      return body;
    },
    [url, token],
  );

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      if (document.visibilityState === 'visible') {
        try {
          const { processes } = (await request('', 'GET')) as { processes: LaunchedProcess[] };
          if (live) setById(new Map(processes.map((p) => [p.participant, p])));
        } catch {
          // The next poll tries again; a card keeps showing the last state it had.
        }
      }
      if (live) timer = setTimeout(poll, PROCESS_POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [request]);

  const act = useCallback(
    async (participantId: string, action: ProcessAction) => {
      const process = (await request(`/${encodeURIComponent(participantId)}/${action}`, 'POST')) as LaunchedProcess;
      setById((current) => new Map(current).set(participantId, process));
      return process;
    },
    [request],
  );

  const value = useMemo(() => ({ byId, act }), [byId, act]);
  return <Context value={value}>{children}</Context>;
}
