'use client';

import { useEffect, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import type { ProcessAction } from '@/lib/protocol';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useLaunchedProcess, type LaunchedProcess } from './launched-processes';
import { OAuthConnection } from './oauth-connection';
import { BUTTON } from './styles';
import { MemoryLoss } from './working-memory';

const STATE_TEXT: Record<LaunchedProcess['state'], string> = {
  starting: 'starting',
  running: 'running',
  restarting: 'restarting',
  crashed: 'crashed',
  exited: 'exited',
  stopped: 'stopped',
};

const STATE_COLOUR: Record<LaunchedProcess['state'], string> = {
  starting: 'text-sky-300',
  running: 'text-emerald-300',
  restarting: 'text-amber-300',
  crashed: 'text-red-300',
  exited: 'text-slate-400',
  stopped: 'text-slate-400',
};

/** Which control a process action needs, as the gateway checks it. */
const NEEDS: Record<ProcessAction, 'participant/restart' | 'participant/shutdown'> = {
  start: 'participant/restart',
  restart: 'participant/restart',
  stop: 'participant/shutdown',
};

/** Stop and Restart end the process and everything it held in memory: they ask once, saying so; Start does not. */
const CONFIRMED: Partial<Record<ProcessAction, { verb: string; done: string; effect: string }>> = {
  stop: { verb: 'Stop', done: 'Stopped', effect: 'Its process ends and stays stopped (no automatic restart) until someone presses Start.' },
  restart: { verb: 'Restart', done: 'Restarted', effect: 'Its process ends and starts afresh from its configuration, then joins the space again.' },
};

function exitText(lastExit: NonNullable<LaunchedProcess['lastExit']>): string {
  return lastExit.signal ? `killed by ${lastExit.signal}` : `exit code ${lastExit.code}`;
}

/** Seconds until `at`, re-rendered every second while counting. */
function useSecondsUntil(at: number | undefined): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? undefined : Math.max(0, Math.ceil((at - now) / 1_000));
}

/**
 * The process of a participant the server launches: its state (starting, running, crashed with its exit code and
 * last log lines, stopped, restarting in N s) and Start / Stop / Restart for whoever may send the matching control;
 * for a remote MCP bridge whose server wants OAuth, its authorization with Connect / Disconnect (`OAuthConnection`).
 */
export function ProcessState({ participantId }: { participantId: string }) {
  const { process, act, oauth, connections } = useLaunchedProcess(participantId);
  const { participant } = useSpaceSession();
  const mine = useSpace((s) => s.connection.capabilities);
  const allowed = useMemo(() => {
    void mine; // re-asked after each welcome that changes my capabilities
    return (action: ProcessAction) => participant.canSend(NEEDS[action], {});
  }, [participant, mine]);
  const [busy, setBusy] = useState<ProcessAction>();
  const [confirming, setConfirming] = useState<ProcessAction>();
  const seconds = useSecondsUntil(process?.state === 'restarting' ? process.restartAt : undefined);
  if (!process) return null;

  const up = process.state === 'starting' || process.state === 'running';
  const actions: ProcessAction[] = up ? ['restart', 'stop'] : process.state === 'restarting' ? ['start', 'stop'] : ['start'];
  const run = (action: ProcessAction) => {
    setConfirming(undefined);
    setBusy(action);
    act(participantId, action)
      .then(() => CONFIRMED[action] && toast.success(`${CONFIRMED[action].done} ${participantId}`))
      .catch((error: unknown) => toast.error(`Could not ${action} ${participantId}`, { description: error instanceof Error ? error.message : String(error) }))
      .finally(() => setBusy(undefined));
  };
  const ended = (process.state === 'crashed' || process.state === 'exited') && process.lastExit;
  // Why it is down, in its own last words (e.g. "not configured: set OPENAI_API_KEY or agent.base_url").
  const lastLine = process.tail?.at(-1);
  const details = [
    process.pid !== undefined && up && `pid ${process.pid}`,
    process.restarts > 0 && `restarted ${process.restarts}×`,
    ended && exitText(process.lastExit!),
    process.state === 'restarting' && seconds !== undefined && `in ${seconds} s`,
  ].filter(Boolean);

  return (
    <div role="group" aria-label={`Process of ${participantId}`} className="flex flex-col gap-1 rounded border border-slate-800 px-2 py-1.5">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
        <span className="text-slate-500">Process</span>
        <span className={`font-medium ${STATE_COLOUR[process.state]}`}>{STATE_TEXT[process.state]}</span>
        {details.length > 0 && <span className="text-slate-400">{details.join(' · ')}</span>}
        <span className="ml-auto flex gap-1">
          {actions.filter(allowed).map((action) => (
            <button
              key={action}
              type="button"
              className={BUTTON.small}
              disabled={busy !== undefined}
              onClick={() => (CONFIRMED[action] ? setConfirming(action) : run(action))}
              aria-label={`${action} ${participantId}`}
            >
              {busy === action ? `${action}…` : action.charAt(0).toUpperCase() + action.slice(1)}
            </button>
          ))}
        </span>
      </div>
      <ConfirmDialog
        open={confirming !== undefined}
        size="small"
        title={`${confirming && CONFIRMED[confirming]?.verb} ${participantId}?`}
        description={
          <>
            {confirming && CONFIRMED[confirming]?.effect} <MemoryLoss participant={participantId} />
          </>
        }
        confirmLabel={(confirming && CONFIRMED[confirming]?.verb) ?? ''}
        classNames={{ cancel: BUTTON.secondary, confirm: BUTTON.danger }}
        onCancel={() => setConfirming(undefined)}
        onConfirm={() => confirming && run(confirming)}
      />
      {!up && lastLine && <p className="break-words text-xs text-amber-200">{lastLine}</p>}
      <OAuthConnection participantId={participantId} connection={oauth} connections={connections} />
      {process.tail && process.tail.length > 0 && (
        <details open={process.state === 'crashed'} className="text-xs">
          <summary className="cursor-pointer text-slate-400">Last log lines</summary>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-950 p-1.5 font-mono text-[11px] text-slate-300">
            {process.tail.slice(-8).join('\n')}
          </pre>
        </details>
      )}
    </div>
  );
}
