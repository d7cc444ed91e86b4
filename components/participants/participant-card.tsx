'use client';

import { memo, useMemo, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { participantById, type ParticipantState } from '@/lib/store';
import { CapabilityEditor } from './capability-editor';
import { BudgetGauge } from './budget-gauge';
import { CapabilitySummaryView } from './capability-summary';
import { ConnectMcpDialog } from './connect-mcp-dialog';
import { ContextGauge } from './context-gauge';
import type { TrackedSend } from './action-outcome';
import { ControlStatus } from './control-status';
import { McpSessions } from './mcp-sessions';
import { summarizeCapabilities } from './effective-capabilities';
import { useGrantsTo } from './grants-to';
import { ParticipantControls } from './participant-controls';
import { ProcessState } from './process-state';
import { ReportedStatus } from './reported-status';
import { usePatternRevocations } from './pattern-revocations';
import { RelativeTime } from './relative-time';
import { BUTTON } from './styles';

/** Whether I may change anyone's capabilities at all (the editor checks each concrete grant again). */
function useMayEditCapabilities(recipient: string): boolean {
  const { participant } = useSpaceSession();
  const mine = useSpace((s) => s.connection.capabilities);
  return useMemo(() => {
    void mine; // re-asked after each welcome that changes my capabilities
    const sample = { recipient, capabilities: [{ kind: 'chat' }] };
    return participant.operate.allows('grant', sample) || participant.operate.allows('revoke', sample);
  }, [participant, mine, recipient]);
}

/**
 * One participant: presence, badges, context gauge, capabilities, the controls menu and their outcome. It reads this
 * participant's own record, grants and telemetry (in the gauges), so others' envelopes do not re-render it; only rare
 * space-wide changes (my own capabilities, a revocation by pattern) reach every card.
 */
export const ParticipantCard = memo(function ParticipantCard({ id, me }: { id: string; me: boolean }) {
  const p = useSpace((s) => participantById(s, id));
  const grants = useGrantsTo(id);
  const revocations = usePatternRevocations(id, p?.capabilities ?? []);
  const summary = useMemo(() => summarizeCapabilities(p?.capabilities ?? [], grants, revocations), [p?.capabilities, grants, revocations]);
  const mayEdit = useMayEditCapabilities(id);
  const [editing, setEditing] = useState(false);
  // Operators may issue a token of another participant's for an MCP client (the server checks again).
  const mayConnectMcp = useIsOperator() && !me;
  const [connectingMcp, setConnectingMcp] = useState(false);
  const [pending, setPending] = useState<{ sent: TrackedSend; label: string }>();

  const headingId = `rail-participant-${id}`;
  if (!p) return <NeverJoinedCard id={id} headingId={headingId} />;
  return (
    <article
      aria-labelledby={headingId}
      className={`flex flex-col gap-2 rounded-md border p-2.5 ${p.online ? 'border-slate-700 bg-slate-900/60' : 'border-slate-800 bg-slate-950 text-slate-400'}`}
    >
      <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${p.online ? 'bg-emerald-400' : 'bg-slate-600'}`} />
        {/* grows from its content width, so a long id pushes the buttons onto their own line instead of being cut */}
        <h3 id={headingId} className={`min-w-0 grow break-all font-mono text-sm ${p.online ? 'text-slate-100' : 'text-slate-400'}`}>
          {id}
          {me && <span className="font-sans text-xs text-slate-500"> (you)</span>}
        </h3>
        <div className="ml-auto flex items-center gap-1">
          {mayEdit && !me && (
            <button type="button" onClick={() => setEditing(true)} aria-label={`Capabilities of ${id}`} className={BUTTON.small}>
              Capabilities
            </button>
          )}
          {!me && <ParticipantControls participant={p} onSent={(sent, label) => setPending({ sent, label })} />}
        </div>
      </header>

      <Presence p={p} />
      {/* an MCP client joined as it is one of its connections: only an online participant has any */}
      {p.online && <McpSessions participantId={id} presence={`${p.joinedAt}-${p.lastSeen}`} />}
      <Badges p={p} />
      <ProcessState participantId={id} />
      {p.online && <ContextGauge participant={id} />}
      <BudgetGauge participant={id} paused={p.paused} />
      {p.online && <ReportedStatus participant={id} />}
      <CapabilitySummaryView summary={summary} />
      <ControlStatus control={p.lastControl} pending={pending} />
      {mayEdit && !me && <CapabilityEditor recipient={id} summary={summary} open={editing} onClose={() => setEditing(false)} />}
      {mayConnectMcp && (
        <div>
          <button type="button" onClick={() => setConnectingMcp(true)} className={BUTTON.small}>
            Connect an MCP client…
          </button>
          <ConnectMcpDialog participant={id} open={connectingMcp} onClose={() => setConnectingMcp(false)} />
        </div>
      )}
    </article>
  );
});

/** A participant the server launches that has not joined yet (not started, or it fails before joining). */
function NeverJoinedCard({ id, headingId }: { id: string; headingId: string }) {
  return (
    <article aria-labelledby={headingId} className="flex flex-col gap-2 rounded-md border border-slate-800 bg-slate-950 p-2.5 text-slate-400">
      <h3 id={headingId} className="break-all font-mono text-sm text-slate-400">
        {id}
      </h3>
      <p className="text-xs text-slate-500">Not joined yet</p>
      <ProcessState participantId={id} />
    </article>
  );
}

function Presence({ p }: { p: ParticipantState }) {
  if (p.online) {
    return (
      <p className="text-xs text-slate-400">
        <span className="text-emerald-300">Online</span>
        {p.joinedAt !== undefined ? (
          <>
            {' '}
            · joined <RelativeTime at={p.joinedAt} />
          </>
        ) : (
          ' · joined before you'
        )}
      </p>
    );
  }
  const seen = p.leftAt ?? p.lastSeen;
  if (seen === undefined && p.invited) {
    return (
      <p className="text-xs text-slate-500">
        Invited by {p.invited.by} <RelativeTime at={p.invited.at} /> · not joined yet
      </p>
    );
  }
  return (
    <p className="text-xs text-slate-500">
      Offline
      {seen !== undefined && (
        <>
          {' '}
          · last seen <RelativeTime at={seen} />
        </>
      )}
    </p>
  );
}

const BADGE = 'rounded px-1.5 py-0.5 text-[11px] font-medium';

function Badges({ p }: { p: ParticipantState }) {
  // Only operators are told of others' refusals: for anyone else this count stays empty.
  const refusals = useSpace((s) => s.security.countByOffender.get(p.id));
  const badges = [];
  if (refusals) {
    badges.push(
      <span key="refusals" className={`${BADGE} bg-red-900/60 text-red-200`} title="Refused by the gateway since you joined (see Security events)">
        {refusals} refused
      </span>,
    );
  }
  if (p.paused) {
    badges.push(
      <span key="paused" className={`${BADGE} bg-amber-900/60 text-amber-200`} title={p.paused.reason ? `Reason: ${p.paused.reason}` : undefined}>
        Paused
        <span className="font-normal">
          {' '}
          by {p.paused.by}
          {p.paused.until !== undefined && <> until {new Date(p.paused.until).toLocaleTimeString()}</>}
        </span>
      </span>,
    );
  }
  if (p.shutdown)
    badges.push(
      <span key="shutdown" className={`${BADGE} bg-red-900/60 text-red-200`}>
        Shut down
      </span>,
    );
  if (p.kicked && !p.online)
    badges.push(
      <span key="kicked" className={`${BADGE} bg-red-900/60 text-red-200`}>
        Kicked by {p.kicked.by}
      </span>,
    );
  if (badges.length === 0) return null;
  return <div className="flex flex-wrap gap-1">{badges}</div>;
}
