'use client';

import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useSpaceSession } from '@/components/session/space-session';
import { TimeOrderToggle, useTimeOrder } from '@/components/ui/time-order';
import { matchesLogFilter, toJsonl, type LogEntry, type LogFilter, type SpaceStoreState } from '@/lib/store';
import { maskValue } from '@/lib/secrets/secret-masking';
import { downloadText } from './download-text';
import { inTimeOrder } from './in-time-order';
import { shortId } from './envelope-summary';
import { LogFilters, NO_FILTER, type LogFilterDraft } from './log-filters';
import { LogRow } from './log-row';
import { PanelFrame, buttonClass } from './panel-frame';
import { useDebouncedValue } from './use-debounced-value';
import { useParticipantRoster } from './use-participant-roster';
import { useFollowingList } from './use-following-list';
import { useThrottledSpace } from './use-throttled-space';

/** The log redraws at most this often, whatever the envelope rate. */
const LOG_THROTTLE_MS = 250;
/** Typing in a filter refilters once the typing pauses. */
const FILTER_DEBOUNCE_MS = 200;
/** How long a jumped-to envelope stays highlighted. */
const HIGHLIGHT_MS = 2_500;

const selectLog = (s: SpaceStoreState) => s.log;
const byTime = (e: LogEntry) => e.at;
const bySeq = (e: LogEntry) => e.seq;

function toFilter(draft: LogFilterDraft): LogFilter | undefined {
  const filter: LogFilter = {};
  if (draft.kind.trim()) filter.kind = draft.kind.trim();
  if (draft.participant) filter.participant = draft.participant;
  if (draft.context.trim()) filter.context = draft.context.trim();
  if (draft.text.trim()) filter.text = draft.text.trim();
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/**
 * Every envelope seen, virtualised, newest at the bottom (or at the top: "Newest first", shared with the audit log)
 * and followed live; scrolling away from the newest freezes the view on a
 * snapshot (at hundreds of envelopes a second the rows would otherwise slide away under the reader). Filters by
 * kind prefix, participant, context and text; rows expand to their JSON; correlation ids jump along the chain;
 * the filtered view exports as JSONL. Secrets in rows, their JSON and the export are masked (lib/secrets), and the
 * text filter searches the masked text, so typing part of a secret finds nothing (lib/sdk/model/log-selectors.ts); an
 * operator reveals one envelope's in this tab, audited (revealed-secrets.tsx).
 */
export function EnvelopeLog() {
  const { space, store } = useSpaceSession();
  const log = useThrottledSpace(selectLog, LOG_THROTTLE_MS);
  const participants = useParticipantRoster();
  const [draft, setDraft] = useState<LogFilterDraft>(NO_FILTER);
  const settled = useDebouncedValue(draft, FILTER_DEBOUNCE_MS);
  const filter = useMemo(() => toFilter(settled), [settled]);

  // The store's entries array is a fresh immutable copy per change, so a snapshot can be held while frozen.
  const live = useMemo(() => ({ entries: inTimeOrder(log.entries.entries(), byTime, bySeq), total: log.total }), [log]);
  const liveRef = useRef(live);
  liveRef.current = live;
  const [frozen, setFrozen] = useState<typeof live | null>(null);
  const shown = frozen ?? live;
  const [order] = useTimeOrder();
  const newestFirst = order === 'newest-first';
  const rows = useMemo(() => {
    const matching = filter ? shown.entries.filter((e) => matchesLogFilter(e, filter)) : shown.entries;
    return newestFirst ? [...matching].reverse() : matching;
  }, [shown, filter, newestFirst]);
  // Read by the jump handler through a ref, so the handler (a prop of every row) stays stable between redraws.
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;
  const [highlight, setHighlight] = useState<string>();
  const [notice, setNotice] = useState('');
  const [pendingJump, setPendingJump] = useState<string>();
  const focusAfterScroll = useRef<string | undefined>(undefined);

  const { scrollRef, virtualizer, totalSize, following, scrollProps, scrollToNewest, release } = useFollowingList({
    count: rows.length,
    // A row's measured height: a wrong estimate makes each newly measured row shift all 10 000 positions.
    estimateSize: 27,
    getItemKey: (i) => rows[i].seq,
    overscan: 10,
    edge: newestFirst ? 'top' : 'bottom',
  });

  // Flipping the order shows the newest end and follows it again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only on a flip
  useEffect(() => scrollToNewest(), [newestFirst]);

  // Freeze on the snapshot of the moment the reader leaves the bottom; follow live again once they return.
  // (A jump may already have frozen a fresher snapshot: keep it.)
  useEffect(() => {
    setFrozen((prev) => (following ? null : (prev ?? liveRef.current)));
  }, [following]);

  useEffect(() => {
    if (!highlight) return;
    const timer = setTimeout(() => setHighlight(undefined), HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [highlight]);

  const scrollToRow = useCallback(
    (index: number, id: string, align: 'center' | 'auto') => {
      virtualizer.scrollToIndex(index, { align });
      focusAfterScroll.current = id;
      // Rows render after the scroll settles; focus the target's toggle once it exists.
      let tries = 0;
      const focus = () => {
        const el = scrollRef.current?.querySelector<HTMLElement>(`[data-envelope-id="${CSS.escape(id)}"] [data-row-toggle]`);
        if (el && focusAfterScroll.current === id) {
          el.focus({ preventScroll: true });
          focusAfterScroll.current = undefined;
        } else if (++tries < 10) requestAnimationFrame(focus);
      };
      requestAnimationFrame(focus);
    },
    [virtualizer],
  );

  const jumpTo = useCallback(
    (id: string) => {
      const rows = rowsRef.current;
      const index = rows.findIndex((e) => e.envelope.id === id);
      if (index >= 0) {
        release();
        scrollToRow(index, id, 'center');
        setHighlight(id);
        setNotice(`Jumped to ${rows[index].envelope.kind} ${shortId(id)} from ${rows[index].envelope.from}.`);
        return;
      }
      const state = store.getState();
      const entry = state.log.entries.get(id);
      if (!entry) {
        // The store remembers far more ids than the log holds, so it can tell evicted from never seen.
        setNotice(
          state.seen?.has(id)
            ? `Envelope ${shortId(id)} is no longer in the log: it was evicted (cap ${state.log.entries.capacity}).`
            : `Envelope ${shortId(id)} is not in the log: it was never seen here.`,
        );
        return;
      }
      // Held by the store but not shown: newer than a frozen snapshot, and/or hidden by the filters.
      release();
      setFrozen({ entries: inTimeOrder(state.log.entries.entries(), byTime, bySeq), total: state.log.total });
      if (filter && !matchesLogFilter(entry, filter)) {
        setDraft(NO_FILTER);
        setNotice(`Filters cleared to show envelope ${shortId(id)}.`);
      }
      setPendingJump(id);
    },
    [store, filter, release, scrollToRow],
  );

  // A jump that had to change what is shown completes once the rows include its target.
  useEffect(() => {
    if (!pendingJump) return;
    const index = rows.findIndex((e) => e.envelope.id === pendingJump);
    if (index < 0) return;
    scrollToRow(index, pendingJump, 'center');
    setHighlight(pendingJump);
    setPendingJump(undefined);
  }, [pendingJump, rows, scrollToRow]);

  // Opening a row to read it stops following, so new envelopes do not push it out of view.
  const toggle = useCallback(
    (id: string) => {
      setExpanded((prev) => {
        const next = new Set(prev);
        if (!next.delete(id)) next.add(id);
        return next;
      });
      if (!expandedRef.current.has(id)) release();
    },
    [release],
  );

  // Arrow keys move between rows, scrolling unrendered ones into view.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!row || !(event.target as HTMLElement).hasAttribute('data-row-toggle')) return;
    const next = Number(row.dataset.index) + (event.key === 'ArrowDown' ? 1 : -1);
    if (next < 0 || next >= rows.length) return;
    event.preventDefault();
    if (event.key === (newestFirst ? 'ArrowDown' : 'ArrowUp')) release(); // away from the newest
    scrollToRow(next, rows[next].envelope.id, 'auto');
  };

  const exportJsonl = () => {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    // Masked like the rows (a file outlives the tab); what an operator revealed here stays revealed here only.
    downloadText(`mew-${space}-${stamp}.jsonl`, toJsonl(rows.map((entry) => maskValue(entry.envelope))), 'application/x-ndjson');
  };

  const newSinceFreeze = frozen ? log.total - frozen.total : 0;
  return (
    <PanelFrame
      title="Envelope log"
      badge={<span className="text-xs text-slate-400">{filter ? `${rows.length} of ${shown.entries.length}` : `${rows.length}`} shown</span>}
      actions={
        <>
          <TimeOrderToggle className={buttonClass.secondary} />
          {toFilter(draft) && (
            <button type="button" className={buttonClass.secondary} onClick={() => setDraft(NO_FILTER)}>
              Clear filters
            </button>
          )}
          <button type="button" className={buttonClass.secondary} onClick={exportJsonl} disabled={rows.length === 0}>
            Export JSONL
          </button>
        </>
      }
    >
      <LogFilters value={draft} onChange={setDraft} participants={participants} />
      {log.evicted > 0 && (
        <p className="text-xs text-amber-300">
          {log.evicted} older envelopes evicted (cap {log.entries.capacity})
        </p>
      )}
      <p aria-live="polite" className="text-xs text-slate-400">
        {notice}
      </p>
      <div className="relative">
        <div
          ref={scrollRef}
          {...scrollProps}
          onKeyDown={(event) => {
            scrollProps.onKeyDown();
            onKeyDown(event);
          }}
          className="h-80 overflow-y-auto rounded-md border border-slate-800 bg-slate-950/60 [contain:strict] [overflow-anchor:none] sm:h-96"
        >
          {rows.length === 0 ? (
            <p className="p-3 text-xs text-slate-400">{filter ? 'No envelope matches these filters.' : 'No envelopes yet.'}</p>
          ) : (
            <div role="list" aria-label="Envelopes" className="relative w-full" style={{ height: totalSize }}>
              {virtualizer.getVirtualItems().map((item) => {
                const entry = rows[item.index];
                const id = entry.envelope.id;
                const isOpen = expanded.has(id);
                return (
                  <div
                    key={item.key}
                    role="listitem"
                    aria-setsize={rows.length}
                    aria-posinset={item.index + 1}
                    data-index={item.index}
                    data-envelope-id={id}
                    ref={virtualizer.measureElement}
                    className="absolute left-0 top-0 w-full"
                    style={{ transform: `translateY(${item.start}px)` }}
                  >
                    <LogRow
                      entry={entry}
                      expanded={isOpen}
                      highlighted={highlight === id}
                      replies={isOpen ? [...log.entries.childrenOf(id)] : undefined}
                      onToggle={toggle}
                      onJump={jumpTo}
                    />
                  </div>
                );
              })}
            </div>
          )}
        </div>
        {!following && (
          <button type="button" onClick={scrollToNewest} className={`${buttonClass.primary} absolute bottom-3 right-5 shadow-lg`}>
            {newSinceFreeze > 0 ? `Jump to newest (${newSinceFreeze} new)` : 'Jump to newest'}
          </button>
        )}
      </div>
    </PanelFrame>
  );
}
