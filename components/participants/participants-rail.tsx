'use client';

import { useMemo, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { participantList } from '@/lib/store';
import { BudgetsProvider } from './budgets';
import { InviteDialog } from './invite-dialog';
import { LaunchedProcessesProvider, useLaunchedIds } from './launched-processes';
import { ParticipantCard } from './participant-card';
import { PatternRevocationsProvider } from './pattern-revocations';
import { BUTTON } from './styles';

/**
 * The operators' rail: one card per participant, online first (offline greyed with "last seen"), and an invite
 * button. Cards are memoised by id and subscribe to their own participant only.
 */
export function ParticipantsRail() {
  const { participant } = useSpaceSession();
  const me = useSpace((s) => s.connection.me);
  const list = useSpace(participantList);
  const mine = useSpace((s) => s.connection.capabilities);
  const [inviting, setInviting] = useState(false);
  const ids = useMemo(() => list.map((p) => p.id), [list]);
  const online = useMemo(() => list.filter((p) => p.online).length, [list]);
  const mayInvite = useMemo(() => {
    void mine; // re-asked after each welcome that changes my capabilities
    return participant.canSend('space/invite', { participant_id: 'x' });
  }, [participant, mine]);

  return (
    <section aria-labelledby="participants-heading" className="flex flex-col gap-2 rounded-lg border border-slate-800 p-3">
      <div className="flex items-center justify-between gap-2">
        <h2 id="participants-heading" className="text-sm font-semibold text-slate-300">
          Participants <span className="font-normal text-slate-500">· {online} online</span>
        </h2>
        {mayInvite && (
          <button type="button" onClick={() => setInviting(true)} className={BUTTON.small}>
            Invite…
          </button>
        )}
      </div>
      <PatternRevocationsProvider>
        <LaunchedProcessesProvider>
          <BudgetsProvider>
            <ParticipantList ids={ids} me={me} />
          </BudgetsProvider>
        </LaunchedProcessesProvider>
      </PatternRevocationsProvider>
      {mayInvite && <InviteDialog open={inviting} onClose={() => setInviting(false)} />}
    </section>
  );
}

/** The cards: everyone the space knows, then launched participants that never joined (so they can be started). */
function ParticipantList({ ids, me }: { ids: string[]; me: string | undefined }) {
  const launched = useLaunchedIds();
  const all = useMemo(() => [...ids, ...launched.filter((id) => !ids.includes(id))], [ids, launched]);
  if (all.length === 0) return <p className="text-xs text-slate-500">Nobody here yet.</p>;
  return (
    <ul aria-label="Participants" className="flex flex-col gap-2">
      {all.map((id) => (
        <li key={id}>
          <ParticipantCard id={id} me={id === me} />
        </li>
      ))}
    </ul>
  );
}
