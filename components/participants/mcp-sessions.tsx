'use client';

import { useCallback, useState } from 'react';
import { toast } from 'sonner';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { type McpSessionList, type McpSessionReport, mcpSessionsPath } from '@/lib/protocol';
import { RelativeTime } from './relative-time';
import { BUTTON } from './styles';

/** How often a card asks for its participant's MCP sessions while it is mounted and the tab is visible. */
const MCP_SESSIONS_POLL_MS = 15_000;

const clientName = (session: McpSessionReport) => (session.client ? `${session.client.name} ${session.client.version}` : 'an unnamed client');

/**
 * The MCP clients joined as this participant (`GET …/mcp/sessions?participant=`): one line each, "MCP: Claude Code
 * 1.0.3 · active 2m ago", with End session for operators (asked once: its calls waiting for approval are withdrawn).
 * Asked again when `presence` changes and every 15 s; nothing is shown while it has none.
 */
export function McpSessions({ participantId, presence }: { participantId: string; presence: string }) {
  const { space, token } = useSpaceSession();
  const operator = useIsOperator();
  const [sessions, setSessions] = useState<readonly McpSessionReport[]>([]);
  const [confirming, setConfirming] = useState<McpSessionReport>();
  const [ending, setEnding] = useState<string>();

  const poll = useCallback(
    async (live: () => boolean) => {
      void presence; // a join or leave asks again at once
      const path = `${mcpSessionsPath()}?participant=${encodeURIComponent(participantId)}`;
      const { sessions: listed } = await spaceApi<McpSessionList>(space, token, path);
      if (live()) setSessions(listed);
    },
    [space, token, participantId, presence],
  );
  useVisiblePoll(poll, MCP_SESSIONS_POLL_MS);

  const end = (session: McpSessionReport) => {
    setConfirming(undefined);
    setEnding(session.id_prefix);
    spaceApi(space, token, mcpSessionsPath(session.id_prefix), { method: 'DELETE' })
      .then(() => {
        setSessions((current) => current.filter((s) => s.id_prefix !== session.id_prefix));
        toast.success(`Ended the MCP session of ${clientName(session)} as ${participantId}`);
      })
      .catch((error: unknown) => toast.error('Could not end the MCP session', { description: error instanceof Error ? error.message : String(error) }))
      .finally(() => setEnding(undefined));
  };

  if (sessions.length === 0) return null;
  return (
    <>
      <ul aria-label={`MCP sessions of ${participantId}`} className="flex flex-col gap-1 text-xs text-slate-400">
        {sessions.map((session) => (
          <li key={session.id_prefix} className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span>
              MCP: <span className="text-slate-200">{clientName(session)}</span> · active <RelativeTime at={Date.parse(session.last_used_at)} />
              {session.waiting > 0 && <> · {session.waiting} waiting for approval</>}
            </span>
            {operator && (
              <button
                type="button"
                className={`${BUTTON.small} ml-auto`}
                disabled={ending === session.id_prefix}
                onClick={() => setConfirming(session)}
                aria-label={`End session of ${clientName(session)}`}
              >
                {ending === session.id_prefix ? 'Ending…' : 'End session'}
              </button>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={confirming !== undefined}
        size="small"
        title={`End the MCP session of ${confirming ? clientName(confirming) : ''}?`}
        description={
          <>
            Its client is disconnected from the space as <b>{participantId}</b>
            {confirming?.waiting ? `, and its ${confirming.waiting} call(s) waiting for approval are withdrawn` : ''}. The client may open a new session with
            its token.
          </>
        }
        confirmLabel="End session"
        classNames={{ cancel: BUTTON.secondary, confirm: BUTTON.danger }}
        onCancel={() => setConfirming(undefined)}
        onConfirm={() => confirming && end(confirming)}
      />
    </>
  );
}
