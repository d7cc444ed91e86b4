'use client';

import { memo, useEffect, useId, useRef, useState } from 'react';
import { sendTracked } from '@/components/participants/action-outcome';
import { useSpaceSession } from '@/components/session/space-session';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { ReasoningThread as Thread } from '@/lib/store';
import { clockTime } from './format-time';
import { LiveIndicator } from './live-indicator';
import { buttonClass } from './panel-frame';
import { MaskedText, SecretMask, useMaskedValue } from './revealed-secrets';
import { useStickToBottom } from './use-stick-to-bottom';

/** What a human's cancel says (spec §3.5.5: `reason` is deployment-defined). */
const CANCEL_REASON = 'cancelled by human';

/** The button says "Cancelling…" until the echo ends the thread, or this long if the gateway refused it. */
const CANCEL_PENDING_MS = 5_000;

/** Longest action input shown under a thought; the envelope log has all of it. */
const ACTION_INPUT_CHARS = 240;

function seconds(fromMs: number, toMs: number): string {
  return `+${Math.max(0, (toMs - fromMs) / 1000).toFixed(1)} s`;
}

type Thought = Thread['thoughts'][number];

/** A thought's action in one line: `tool {"name":"read_file",…}`, `respond Here are the notes…`. */
function actionLine({ action, input }: NonNullable<Thought['action']>): string {
  const shown = input === undefined ? '' : typeof input === 'string' ? input : (JSON.stringify(input) ?? '');
  const clipped = shown.length > ACTION_INPUT_CHARS ? `${shown.slice(0, ACTION_INPUT_CHARS - 1)}…` : shown;
  return clipped ? `${action} ${clipped}` : action;
}

/**
 * One thought: its words and its action, secrets masked until an operator reveals the thought (its envelope, or for a
 * thought read from a stream frame its `<stream>:<n>` id), audited.
 */
const ThoughtItem = memo(function ThoughtItem({ thought: t, startedAt }: { thought: Thought; startedAt: number }) {
  const message = useMaskedValue(t.id, t.message);
  const action = useMaskedValue(t.id, t.action);
  return (
    <li className="flex gap-2">
      <span className="w-14 shrink-0 pt-0.5 text-right font-mono text-[11px] text-slate-500">{seconds(startedAt, t.at)}</span>
      <span className="min-w-0 whitespace-pre-wrap break-words text-slate-200">
        {message.shown}
        {action.shown && <span className={`block font-mono text-xs text-violet-300 ${t.message ? 'mt-0.5' : ''}`}>→ {actionLine(action.shown)}</span>}
        {(message.secret || action.secret) && (
          <span className="block">
            <SecretMask envelopeId={t.id} what="thought" />
          </span>
        )}
      </span>
    </li>
  );
});

/** The raw stream text, masked (revealed by the stream's id); only worked out while shown. */
function StreamOutput({ thread }: { thread: Thread }) {
  const streamKey = thread.streamId ?? `${thread.id}:stream`;
  const text = useMaskedValue(streamKey, thread.streamText);
  return (
    // Closed by default: raw stream text can be long, and often repeats the thoughts above.
    <details>
      <summary className="cursor-pointer rounded text-xs text-slate-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400">
        Stream output ({thread.streamText.length} characters)
      </summary>
      {text.secret && <SecretMask envelopeId={streamKey} what="stream output" />}
      <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-950 p-2 font-mono text-xs text-slate-300">{text.shown}</pre>
    </details>
  );
}

/**
 * One reasoning sequence: collapsed to a header (who, why, live indicator or outcome, thought count) until opened;
 * open, its thoughts arrive live (announced politely) with any stream output, then the conclusion or the cancel.
 * Free text shows with its secrets masked, each envelope's revealed (audited) as in the envelope log.
 */
export const ReasoningThreadItem = memo(function ReasoningThreadItem({ thread, mayCancel }: { thread: Thread; mayCancel: boolean }) {
  const { participant } = useSpaceSession();
  const [open, setOpen] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const bodyId = useId();
  const titleId = useId();
  const thoughtsRef = useRef<HTMLOListElement>(null);
  useStickToBottom(thoughtsRef, open ? thread.thoughts.length + thread.streamText.length : 0);

  const live = thread.state === 'live';
  useEffect(() => {
    if (!cancelling) return;
    const timer = setTimeout(() => setCancelling(false), CANCEL_PENDING_MS);
    return () => clearTimeout(timer);
  }, [cancelling]);

  // Asked once (what it has thought stays, where it was going is lost), then said in a toast when the gateway took it.
  const cancel = () => {
    setConfirming(false);
    setCancelling(true);
    const sent = sendTracked(
      `Cancel ${thread.from}’s reasoning`,
      () => participant.operate.cancelReasoning(thread.from, thread.id, { reason: CANCEL_REASON }),
      {
        success: `Cancelled ${thread.from}’s reasoning`,
      },
    );
    if (!sent) setCancelling(false);
  };

  const count = thread.thoughts.length + thread.droppedThoughts;
  const title = useMaskedValue(thread.id, thread.message);
  const conclusion = useMaskedValue(thread.conclusion?.id ?? '', thread.conclusion?.message);
  const cancelReason = useMaskedValue(thread.cancel?.id ?? '', thread.cancel?.reason);
  return (
    // Fifty agents thinking at once make a list far taller than the screen: rows off screen skip style, layout,
    // paint and their live indicator's animation (content-visibility), at the height they last had.
    <li
      className={`rounded-md border [contain-intrinsic-size:auto_4rem] [content-visibility:auto] ${live ? 'border-sky-900/80 bg-sky-950/20' : 'border-slate-800 bg-slate-950/40'}`}
    >
      <div className="flex flex-wrap items-center gap-2 p-2">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={open ? bodyId : undefined}
          onClick={() => setOpen((o) => !o)}
          className="flex min-w-0 flex-1 basis-56 items-start gap-2 rounded text-left focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
        >
          <span aria-hidden="true" className={`mt-0.5 text-slate-500 transition-transform ${open ? 'rotate-90' : ''}`}>
            ▸
          </span>
          <span className="min-w-0 flex-1">
            <span className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
              <span className="font-mono text-xs text-slate-300">{thread.from}</span>
              <span className="text-xs text-slate-400">
                {count} {count === 1 ? 'thought' : 'thoughts'}
              </span>
              {live ? (
                <LiveIndicator />
              ) : thread.state === 'concluded' ? (
                <span className="rounded-full bg-emerald-900/60 px-2 py-0.5 text-xs text-emerald-200">concluded</span>
              ) : (
                <span className="rounded-full bg-slate-800 px-2 py-0.5 text-xs text-slate-300">cancelled</span>
              )}
            </span>
            <span id={titleId} className="line-clamp-2 break-words text-sm text-slate-100">
              {title.shown || 'Reasoning'}
            </span>
          </span>
        </button>
        {title.secret && <SecretMask envelopeId={thread.id} what="reasoning" />}
        {live && mayCancel && (
          <button type="button" className={buttonClass.danger} onClick={() => setConfirming(true)} disabled={cancelling} aria-describedby={titleId}>
            {cancelling ? 'Cancelling…' : 'Cancel reasoning'}
          </button>
        )}
        <ConfirmDialog
          open={confirming && live}
          size="small"
          title={`Cancel ${thread.from}’s reasoning?`}
          description={
            <>
              <b>{thread.from}</b> stops this line of reasoning ({count} {count === 1 ? 'thought' : 'thoughts'} so far) and does not act on where it was going;
              its thoughts stay here. A cancelled reasoning cannot be resumed.
            </>
          }
          confirmLabel="Cancel reasoning"
          cancelLabel="Keep it running"
          classNames={{ cancel: buttonClass.secondary, confirm: buttonClass.danger }}
          onCancel={() => setConfirming(false)}
          onConfirm={cancel}
        />
      </div>
      {!open && (thread.conclusion?.message || thread.cancel) && (
        <p className="truncate px-2 pb-2 pl-7 text-xs text-slate-400">
          {thread.conclusion ? `Conclusion: ${conclusion.shown}` : `Cancelled by ${thread.cancel?.by}${cancelReason.shown ? `: ${cancelReason.shown}` : ''}`}
        </p>
      )}
      {open && (
        <div id={bodyId} className="flex flex-col gap-2 border-t border-slate-800 p-2 text-sm">
          <p className="text-xs text-slate-400">
            Started {clockTime(thread.startedAt)}
            {thread.correlatedTo.length > 0 && (
              <>
                {' '}
                · about <span className="font-mono">{thread.correlatedTo.join(', ')}</span>
              </>
            )}
          </p>
          {thread.droppedThoughts > 0 && <p className="text-xs text-slate-500">{thread.droppedThoughts} earlier thoughts dropped</p>}
          <ol
            ref={thoughtsRef}
            aria-live={live ? 'polite' : 'off'}
            aria-relevant="additions"
            aria-label="Thoughts"
            className="flex max-h-64 flex-col gap-1 overflow-y-auto [contain:content]"
          >
            {thread.thoughts.map((t) => (
              <ThoughtItem key={t.id} thought={t} startedAt={thread.startedAt} />
            ))}
            {thread.thoughts.length === 0 && live && <li className="text-xs text-slate-500">No thoughts yet.</li>}
          </ol>
          {thread.streamText && <StreamOutput thread={thread} />}
          {thread.conclusion?.message && (
            <p className="rounded border border-emerald-900 bg-emerald-950/40 p-2 text-emerald-100">
              <span className="font-medium">Conclusion: </span>
              <span className="whitespace-pre-wrap break-words">
                <MaskedText envelopeId={thread.conclusion.id} text={thread.conclusion.message} what="conclusion" />
              </span>
            </p>
          )}
          {thread.cancel && (
            <p className="rounded border border-slate-700 bg-slate-900 p-2 text-slate-200">
              <span className="font-medium">Cancelled by {thread.cancel.by}</span>
              {thread.cancel.reason && (
                <>
                  : <MaskedText envelopeId={thread.cancel.id} text={thread.cancel.reason} what="cancel" />
                </>
              )}
            </p>
          )}
        </div>
      )}
    </li>
  );
});
