'use client';

import { useCallback, useId, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSpace } from '@/components/session/space-session';
import { chartRows, pendingProposals, telemetryOf, type SpaceStoreState } from '@/lib/store';
import { PanelFrame, fieldClass } from './panel-frame';
import { StatusRequestControls } from './status-request-controls';
import { TelemetryChart } from './telemetry-chart';
import { chartGroups } from './telemetry-fields';
import { TelemetryLatest } from './telemetry-latest';
import { useParticipantRoster } from './use-participant-roster';
import { useThrottledSpace } from './use-throttled-space';

/** Charts redraw at most this often, however fast statuses arrive. */
const CHART_THROTTLE_MS = 500;

interface Target {
  id: string;
  online: boolean;
  reported: boolean;
}

/** Every participant but me, online first, then anyone who reported status without being listed. */
function useTargets(): Target[] {
  const me = useSpace((s) => s.connection.me);
  const listed = useParticipantRoster();
  const reporting = useSpace(useShallow((s: SpaceStoreState) => [...s.telemetry.byParticipant.keys()]));
  return useMemo(() => {
    const out = listed.filter((p) => p.id !== me).map((p) => ({ id: p.id, online: p.online, reported: reporting.includes(p.id) }));
    for (const id of reporting) if (!out.some((p) => p.id === id)) out.push({ id, online: false, reported: true });
    return out;
  }, [listed, reporting, me]);
}

/** Whoever proposed the oldest call still waiting for a decision: the agent an operator is about to judge. */
const waitingProposer = (s: SpaceStoreState) => pendingProposals(s)[0]?.proposer;

/**
 * Telemetry of one participant at a time (chosen in a select): its latest status as text, small-multiple charts of
 * every numeric field over time, and status requests (now, or polled).
 */
export function TelemetryPanel() {
  const targets = useTargets();
  const [chosen, setChosen] = useState<string>();
  const selectId = useId();
  const waiting = useSpace(waitingProposer);
  // Until someone is chosen, follow the agent with work waiting (the oldest pending proposal's proposer), else the
  // first participant that reported, else the first listed.
  const target = chosen ?? targets.find((t) => t.id === waiting)?.id ?? targets.find((t) => t.reported)?.id ?? targets[0]?.id;

  const telemetry = useThrottledSpace(
    useCallback((s: SpaceStoreState) => (target ? telemetryOf(s, target) : undefined), [target]),
    CHART_THROTTLE_MS,
  );
  const rows = useMemo(() => (telemetry ? chartRows(telemetry) : []), [telemetry]);
  const groups = useMemo(() => chartGroups(telemetry?.fields ?? []), [telemetry?.fields]);

  return (
    <PanelFrame
      title="Telemetry"
      actions={
        <>
          <label htmlFor={selectId} className="text-xs text-slate-400">
            Participant
          </label>
          <select id={selectId} className={fieldClass} value={target ?? ''} onChange={(e) => setChosen(e.target.value)} disabled={targets.length === 0}>
            {targets.length === 0 && <option value="">No participants</option>}
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.online ? t.id : `${t.id} (offline)`}
              </option>
            ))}
          </select>
        </>
      }
    >
      <StatusRequestControls target={target} />
      {!target ? (
        <p className="text-xs text-slate-400">No other participants in this space yet.</p>
      ) : !telemetry ? (
        <p className="text-xs text-slate-400">No status from {target} yet.</p>
      ) : (
        <>
          <TelemetryLatest telemetry={telemetry} />
          <div className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-1">
            {groups.map((g) => (
              <TelemetryChart key={g.key} group={g} rows={rows} />
            ))}
          </div>
        </>
      )}
    </PanelFrame>
  );
}
