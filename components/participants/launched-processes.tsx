'use client';

import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { usePolledById } from '@/components/session/use-polled-by-id';
import type { McpOAuthReport, ProcessAction, ProcessList, ProcessReport } from '@/lib/protocol';
import { useOAuthConnections, type OAuthConnections } from './oauth-connection';

/** How often the rail asks the server how launched participants' processes are doing (while the tab is visible). */
const PROCESS_POLL_MS = 2_000;

const processList = (body: ProcessList) => body.processes;
const participantOf = (process: ProcessReport) => process.participant;

/** A launched participant's process, as `GET /api/spaces/{space}/processes` reports it. */
export type LaunchedProcess = ProcessReport;

interface LaunchedProcesses {
  byId: ReadonlyMap<string, LaunchedProcess>;
  /** Asks the server; resolves with the process as it is after the action, or rejects with the server's message. */
  act(participantId: string, action: ProcessAction): Promise<LaunchedProcess>;
  /** The remote bridges' OAuth (`GET /api/spaces/{space}/oauth`), and Connect / Disconnect. */
  oauth: OAuthConnections;
}

const noProvider = () => Promise.reject(new Error('no process provider'));
const Context = createContext<LaunchedProcesses>({ byId: new Map(), act: noProvider, oauth: { byId: new Map(), connect: noProvider, disconnect: noProvider } });

/** The participants the server launches, whether or not they ever joined. */
export function useLaunchedIds(): string[] {
  const { byId } = useContext(Context);
  return useMemo(() => [...byId.keys()], [byId]);
}

/** The process of a participant the server launches, or undefined for one it does not; a remote bridge's OAuth too. */
export function useLaunchedProcess(participantId: string): {
  process?: LaunchedProcess;
  act: LaunchedProcesses['act'];
  oauth?: McpOAuthReport;
  connections: OAuthConnections;
} {
  const { byId, act, oauth } = useContext(Context);
  return { process: byId.get(participantId), act, oauth: oauth.byId.get(participantId), connections: oauth };
}

/**
 * Polls the server's process endpoint for the space and shares the answer with every participant card, so one
 * request serves the whole rail. The server decides what each caller may see and do; this only asks.
 */
export function LaunchedProcessesProvider({ children }: { children: ReactNode }) {
  const { space, token } = useSpaceSession();
  // A failed poll leaves the cards showing the last state they had.
  const [byId, setById] = usePolledById('/processes', processList, participantOf, PROCESS_POLL_MS);
  const oauth = useOAuthConnections();

  const act = useCallback(
    async (participantId: string, action: ProcessAction) => {
      const process = await spaceApi<LaunchedProcess>(space, token, `/processes/${encodeURIComponent(participantId)}/${action}`, { method: 'POST' });
      setById((current) => new Map(current).set(participantId, process));
      return process;
    },
    [space, token, setById],
  );

  const value = useMemo(() => ({ byId, act, oauth }), [byId, act, oauth]);
  return <Context value={value}>{children}</Context>;
}
