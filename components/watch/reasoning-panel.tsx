'use client';

import { useMemo, useState } from 'react';
import { reasoningThreads } from '@/lib/store';
import { PanelFrame, buttonClass } from './panel-frame';
import { ReasoningThreadItem } from './reasoning-thread';
import { useCanSend } from './use-can-send';
import { useThrottledSpace } from './use-throttled-space';

/** Thoughts can stream fast; a few redraws a second keep them live without redrawing per envelope. */
const REASONING_THROTTLE_MS = 200;

/** Finished threads shown at first (and added per "Show more"); live ones are always shown. */
const FINISHED_PAGE = 10;

/** Live reasoning threads first (newest first), then finished ones; each collapsible, live ones cancellable. */
export function ReasoningPanel() {
  const threads = useThrottledSpace(reasoningThreads, REASONING_THROTTLE_MS);
  const mayCancel = useCanSend('reasoning/cancel', { reason: 'cancelled by human' });
  const [finishedShown, setFinishedShown] = useState(FINISHED_PAGE);

  const { live, finished } = useMemo(
    () => ({ live: threads.filter((t) => t.state === 'live'), finished: threads.filter((t) => t.state !== 'live') }),
    [threads],
  );
  const visibleFinished = finished.slice(0, finishedShown);

  return (
    <PanelFrame
      title="Reasoning"
      badge={live.length > 0 ? <span className="rounded-full bg-sky-900/60 px-2 py-0.5 text-xs text-sky-200">{live.length} live</span> : undefined}
    >
      {threads.length === 0 ? (
        <p className="text-xs text-slate-400">No reasoning yet. Threads appear here when an agent sends reasoning/start.</p>
      ) : (
        <ul aria-label="Reasoning threads" className="flex flex-col gap-2">
          {/* One keyed list, so a thread that finishes keeps its open/closed state as it moves down. */}
          {[...live, ...visibleFinished].map((t) => (
            <ReasoningThreadItem key={t.id} thread={t} mayCancel={mayCancel} />
          ))}
        </ul>
      )}
      {finished.length > finishedShown && (
        <button type="button" className={`${buttonClass.secondary} self-start`} onClick={() => setFinishedShown((n) => n + FINISHED_PAGE)}>
          Show {Math.min(FINISHED_PAGE, finished.length - finishedShown)} older
        </button>
      )}
    </PanelFrame>
  );
}
