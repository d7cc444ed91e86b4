'use client';

import { useCallback, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useIsOperator } from '@/components/session/use-is-operator';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import type { McpOAuthConnectAnswer, McpOAuthList, McpOAuthReport, McpOAuthState } from '@/lib/protocol';
import { BUTTON } from './styles';

/** How often the rail asks how the remote bridges' OAuth stands (while the tab is visible, and any are listed). */
const OAUTH_POLL_MS = 2_000;

/** The remote bridges' OAuth in a space, shared by the rail's cards, and what an operator may do about it. */
export interface OAuthConnections {
  byId: ReadonlyMap<string, McpOAuthReport>;
  /** Starts an authorization and sends `page` (a window opened by the click) to the authorization server; resolves with its URL. */
  connect(participantId: string, page: Window | null): Promise<string>;
  disconnect(participantId: string): Promise<void>;
}

/**
 * Polls `GET /api/spaces/{space}/oauth`: the remote bridges the server launches and their OAuth (no secret in it).
 * A space with none (the list is the config's, fixed while the server runs) is asked once.
 */
export function useOAuthConnections(): OAuthConnections {
  const { space, token } = useSpaceSession();
  const [byId, setById] = useState<ReadonlyMap<string, McpOAuthReport>>(new Map());
  const none = useRef(false);
  const poll = useCallback(
    async (live: () => boolean) => {
      if (none.current) return;
      const { connections } = await spaceApi<McpOAuthList>(space, token, '/oauth');
      none.current = connections.length === 0;
      if (live()) setById(new Map(connections.map((connection) => [connection.participant, connection])));
    },
    [space, token],
  );
  useVisiblePoll(poll, OAUTH_POLL_MS);

  const path = useCallback((participantId: string) => `/processes/${encodeURIComponent(participantId)}/oauth`, []);
  const connect = useCallback(
    async (participantId: string, page: Window | null) => {
      try {
        const { authorization_url } = await spaceApi<McpOAuthConnectAnswer>(space, token, `${path(participantId)}/connect`, { method: 'POST' });
        if (page && !page.closed) page.location.href = authorization_url;
        setById((current) => withState(current, participantId, 'authorizing'));
        return authorization_url;
      } catch (error) {
        page?.close();
        throw error;
      }
    },
    [space, token, path],
  );
  const disconnect = useCallback(
    async (participantId: string) => {
      const report = await spaceApi<McpOAuthReport>(space, token, path(participantId), { method: 'DELETE' });
      setById((current) => new Map(current).set(participantId, report));
    },
    [space, token, path],
  );
  return useMemo(() => ({ byId, connect, disconnect }), [byId, connect, disconnect]);
}

function withState(current: ReadonlyMap<string, McpOAuthReport>, participantId: string, state: McpOAuthState): ReadonlyMap<string, McpOAuthReport> {
  const known = current.get(participantId);
  return known ? new Map(current).set(participantId, { ...known, state }) : current;
}

const STATE_TEXT: Record<McpOAuthState, string> = {
  connected: 'connected',
  authorization_required: 'authorization needed',
  authorizing: 'waiting for the authorization page',
  not_connected: 'not connected',
};

const STATE_COLOUR: Record<McpOAuthState, string> = {
  connected: 'text-emerald-300',
  authorization_required: 'text-amber-300',
  authorizing: 'text-sky-300',
  not_connected: 'text-slate-400',
};

/** Minutes until an ISO time, in words. */
function untilText(iso: string): string {
  const minutes = Math.round((Date.parse(iso) - Date.now()) / 60_000);
  if (minutes <= 0) return 'expired';
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/**
 * A remote bridge's OAuth on its card: whether the server holds a token for its MCP server (scopes, expiry, who
 * authorized it), **Connect** when the server wants one (the authorization page opens in a new window; the card
 * updates once it sent the browser back) and **Disconnect**, for operators. Tokens never reach the browser.
 */
export function OAuthConnection({
  participantId,
  connection,
  connections,
}: {
  participantId: string;
  connection?: McpOAuthReport;
  connections: OAuthConnections;
}) {
  const operator = useIsOperator();
  const [busy, setBusy] = useState<'connect' | 'disconnect'>();
  // When the browser blocked the new window: the link to open by hand.
  const [blocked, setBlocked] = useState<string>();
  if (!connection || (connection.state === 'not_connected' && !connection.last_error)) return null;

  const connect = () => {
    // Opened in the click itself, so no popup blocker stops it; pointed at the authorization page once the server answers.
    const page = window.open('about:blank', '_blank');
    if (page) page.opener = null;
    setBusy('connect');
    setBlocked(undefined);
    connections
      .connect(participantId, page)
      .then((url) => !page && setBlocked(url))
      .catch((error: unknown) => toast.error(`Could not connect ${participantId}`, { description: error instanceof Error ? error.message : String(error) }))
      .finally(() => setBusy(undefined));
  };
  const disconnect = () => {
    setBusy('disconnect');
    connections
      .disconnect(participantId)
      .catch((error: unknown) => toast.error(`Could not disconnect ${participantId}`, { description: error instanceof Error ? error.message : String(error) }))
      .finally(() => setBusy(undefined));
  };
  const connected = connection.state === 'connected';
  const details = [
    connection.scopes && connection.scopes.length > 0 && connection.scopes.join(' '),
    connected && connection.expires_at && `token ${untilText(connection.expires_at)}${connection.refreshable ? ', renewed' : ''}`,
    connected && connection.connected_by && `by ${connection.connected_by}`,
  ].filter(Boolean);

  return (
    <div role="group" aria-label={`OAuth of ${participantId}`} className="flex flex-col gap-1 border-t border-slate-800 pt-1">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
        <span className="text-slate-500">OAuth</span>
        <span className={`font-medium ${STATE_COLOUR[connection.state]}`}>{STATE_TEXT[connection.state]}</span>
        {details.length > 0 && <span className="text-slate-400">{details.join(' · ')}</span>}
        {operator && (
          <span className="ml-auto flex gap-1">
            {connected ? (
              <button type="button" className={BUTTON.small} disabled={busy !== undefined} onClick={disconnect} aria-label={`Disconnect ${participantId}`}>
                {busy === 'disconnect' ? 'Disconnecting…' : 'Disconnect'}
              </button>
            ) : (
              <button type="button" className={BUTTON.small} disabled={busy !== undefined} onClick={connect} aria-label={`Connect ${participantId}`}>
                {busy === 'connect' ? 'Connecting…' : 'Connect'}
              </button>
            )}
          </span>
        )}
      </div>
      <p className="break-all text-xs text-slate-500">{connection.server}</p>
      {connection.last_error && !connected && <p className="break-words text-xs text-amber-200">{connection.last_error}</p>}
      {blocked && (
        <a href={blocked} target="_blank" rel="noopener noreferrer" className="text-xs text-sky-300 underline">
          Open the authorization page
        </a>
      )}
    </div>
  );
}
