'use client';

import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { participantList } from '@/lib/store';
import { measureFromResizeObserver } from '@/components/ui/measure-from-resize-observer';
import { BudgetsProvider } from './budgets';
import { InviteDialog } from './invite-dialog';
import { LaunchedProcessesProvider, useLaunchedIds } from './launched-processes';
import { ParticipantCard } from './participant-card';
import { PatternRevocationsProvider } from './pattern-revocations';
import { BUTTON } from './styles';

/**
 * The operators' rail: one card per participant, online first (offline greyed with "last seen"), and an invite
 * button. Cards are memoised by id and subscribe to their own participant only; only those near the view are mounted.
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

/**
 * A rail with more participants than this scrolls in a box of its own; a shorter one grows with the page as before,
 * so a card's menu can open past the rail's end instead of inside a scroll box.
 */
const SCROLLS_FROM = 12;
/** A card's height until its own is measured: an online agent's, with its context gauge and reported status. */
const CARD_ESTIMATE_PX = 184;

/**
 * The cards: everyone the space knows, then launched participants that never joined (so they can be started).
 * Virtualised, so a rail of hundreds mounts only the cards near the view (each with its live gauges and their store
 * subscriptions); cards are measured as they are, since they grow when expanded.
 */
function ParticipantList({ ids, me }: { ids: string[]; me: string | undefined }) {
  const launched = useLaunchedIds();
  const all = useMemo(() => [...ids, ...launched.filter((id) => !ids.includes(id))], [ids, launched]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // The card holding focus stays mounted when scrolled away, so keyboard focus (or a dialog open from it) is not lost.
  const [focused, setFocused] = useState<string>();
  const focusedIndex = focused === undefined ? -1 : all.indexOf(focused);
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      return focusedIndex < 0 || indexes.includes(focusedIndex) ? indexes : [...indexes, focusedIndex].sort((a, b) => a - b);
    },
    [focusedIndex],
  );
  const virtualizer = useVirtualizer({
    count: all.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => CARD_ESTIMATE_PX,
    measureElement: measureFromResizeObserver,
    getItemKey: (i) => all[i],
    rangeExtractor,
    overscan: 3,
    // Cards mounted by a scroll render in an ordinary task, not inside the scroll event.
    useFlushSync: false,
  });

  if (all.length === 0) return <p className="text-xs text-slate-500">Nobody here yet.</p>;
  return (
    <div ref={scrollRef} className={all.length > SCROLLS_FROM ? 'max-h-[75vh] overflow-y-auto overscroll-contain' : undefined}>
      <ul aria-label="Participants" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const id = all[item.index];
          return (
            // Placed with `top`, not a transform: a transform would make each row a stacking context of its own,
            // and a card's open menu would then be painted under the cards after it.
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              aria-setsize={all.length}
              aria-posinset={item.index + 1}
              onFocus={() => setFocused(id)}
              onBlur={(event) => {
                if (!event.currentTarget.contains(event.relatedTarget)) setFocused(undefined);
              }}
              className="absolute left-0 w-full pb-2"
              style={{ top: item.start }}
            >
              <ParticipantCard id={id} me={id === me} />
            </li>
          );
        })}
      </ul>
    </div>
  );
}
