'use client';

import { useCallback, useEffect, useMemo, useState } from 'react';
import { ConnectionBadge } from '@/components/control-room/connection-badge';
import { ConfirmDialog } from '@/components/proposals/confirm-dialog';
import { Age } from '@/components/proposals/proposal-clock';
import { ProposalCard, type CardAction } from '@/components/proposals/proposal-card';
import { RejectDialog } from '@/components/proposals/reject-dialog';
import { needsConfirmation } from '@/components/proposals/use-proposal-actions';
import { useQueueHotkeys, type QueueKey } from '@/components/proposals/use-queue-hotkeys';
import { describeSessionEnd } from '@/components/session/session-end';
import { forgetToken, signedInSpaces } from '@/components/session/session-token';
import { QuestionCard } from '@/components/questions/question-card';
import { SpaceSessionProvider, SpaceSessionScope } from '@/components/session/space-session';
import type { ChatQuestion, Proposal } from '@/lib/store';
import { SpaceReporter, type SpaceReport } from './space-report';

/** A pending proposal of one of the spaces, as the combined queue shows it. */
interface Waiting {
  space: string;
  proposal: Proposal;
}

/** An open question of one of the spaces, for me to answer. */
interface Asked {
  space: string;
  question: ChatQuestion;
}

type Dialog = { type: 'confirm'; item: Waiting } | { type: 'reject'; item: Waiting };

const keyOf = ({ space, proposal }: Waiting) => `${space}\u0000${proposal.id}`;

/**
 * One inbox across spaces: every space this browser holds a sign-in for, each connected with its own token as in
 * its control room, with its connection state, how many proposals wait and for how long; and "everything waiting":
 * all their pending proposals in one queue, oldest first, decided with the same keys and cards as a space's queue.
 * A kept sign-in the gateway now refuses (revoked, kicked) is said so, with the way to sign in again, and forgotten.
 */
export function Inbox() {
  const [spaces, setSpaces] = useState<{ space: string; token: string }[]>();
  const [reports, setReports] = useState<ReadonlyMap<string, SpaceReport>>(new Map());
  useEffect(() => setSpaces(signedInSpaces()), []);
  const onReport = useCallback((space: string, report: SpaceReport) => setReports((current) => new Map(current).set(space, report)), []);

  if (!spaces || spaces.length === 0) return null;
  return (
    <>
      {spaces.map(({ space, token }) => (
        <SpaceSessionProvider key={space} space={space} token={token}>
          <SpaceReporter onReport={onReport} />
        </SpaceSessionProvider>
      ))}
      <YourSpaces spaces={spaces.map((s) => s.space)} reports={reports} />
      <EverythingWaiting reports={reports} />
    </>
  );
}

function YourSpaces({ spaces, reports }: { spaces: string[]; reports: ReadonlyMap<string, SpaceReport> }) {
  return (
    <section aria-labelledby="your-spaces" className="mt-6 flex flex-col gap-2">
      <h2 id="your-spaces" className="text-lg font-medium">
        Your spaces
      </h2>
      <ul className="flex flex-col gap-2">
        {spaces.map((space) => {
          const report = reports.get(space);
          const oldest = report?.pending.reduce<number | undefined>((min, p) => (min === undefined || p.at < min ? p.at : min), undefined);
          if (report?.connection.status === 'error') return <EndedSpace key={space} space={space} report={report} />;
          return (
            <li key={space} aria-label={`Space ${space}`} className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-800 p-3 text-sm">
              <a
                href={`/spaces/${encodeURIComponent(space)}`}
                className="font-mono font-semibold text-sky-300 underline-offset-2 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
              >
                {space}
              </a>
              {report && (
                <SpaceSessionScope session={report.session}>
                  <ConnectionBadge />
                </SpaceSessionScope>
              )}
              <span className={report && report.pending.length > 0 ? 'text-sky-200' : 'text-slate-400'}>
                {report ? `${report.pending.length} pending` : 'connecting…'}
              </span>
              {oldest !== undefined && report && (
                <SpaceSessionScope session={report.session}>
                  <span className="text-xs text-slate-400">
                    oldest waiting <Age at={oldest} />
                  </span>
                </SpaceSessionScope>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** A kept sign-in whose session ended for good: why, and the way to sign in again; a dead token is forgotten. */
function EndedSpace({ space, report }: { space: string; report: SpaceReport }) {
  const end = describeSessionEnd(space, report.session.participant.client.lastClose);
  useEffect(() => {
    if (end.tokenDead) forgetToken(space, report.session.token);
  }, [end.tokenDead, space, report.session.token]);
  return (
    <li aria-label={`Space ${space}`} className="flex flex-wrap items-center gap-3 rounded-lg border border-red-900 p-3 text-sm">
      <span className="font-mono font-semibold text-slate-200">{space}</span>
      <span role="alert" className="text-red-200">
        {end.title}. {end.detail}
      </span>
      <a
        href={`/?space=${encodeURIComponent(space)}#sign-in-heading`}
        className="text-sky-300 underline-offset-2 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
      >
        Sign in again
      </a>
    </li>
  );
}

function EverythingWaiting({ reports }: { reports: ReadonlyMap<string, SpaceReport> }) {
  const waiting = useMemo(
    () =>
      [...reports.entries()]
        .flatMap(([space, report]) => report.pending.map((proposal): Waiting => ({ space, proposal })))
        .sort((a, b) => a.proposal.at - b.proposal.at),
    [reports],
  );
  // Questions for me beside the proposals, oldest first, each answered in its own box.
  const asked = useMemo(
    () =>
      [...reports.entries()]
        .flatMap(([space, report]) => report.questions.map((question): Asked => ({ space, question })))
        .sort((a, b) => a.question.message.at - b.question.message.at),
    [reports],
  );
  const [selectedKey, setSelectedKey] = useState<string>();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const selected = waiting.find((w) => keyOf(w) === selectedKey) ?? waiting[0];

  const approve = useCallback(
    (item: Waiting, confirmed: boolean) => {
      if (!confirmed && needsConfirmation(item.proposal)) return setDialog({ type: 'confirm', item });
      reports.get(item.space)?.actions.approve(item.proposal);
    },
    [reports],
  );
  const act = useCallback(
    (item: Waiting, action: CardAction) => {
      setSelectedKey(keyOf(item));
      if (action === 'approve') approve(item, false);
      else if (action === 'reject') setDialog({ type: 'reject', item });
    },
    [approve],
  );
  const onKey = useCallback(
    (key: QueueKey) => {
      if (waiting.length === 0) return;
      const index = selected ? waiting.indexOf(selected) : -1;
      if (key === 'j' || key === 'k') {
        const next = waiting[key === 'j' ? Math.min(waiting.length - 1, index + 1) : Math.max(0, index - 1)];
        setSelectedKey(keyOf(next));
        document.querySelector<HTMLElement>(`[data-inbox-key="${CSS.escape(keyOf(next))}"] article`)?.focus();
      } else if (selected && (key === 'a' || key === 'r')) act(selected, key === 'a' ? 'approve' : 'reject');
    },
    [waiting, selected, act],
  );
  useQueueHotkeys(onKey, dialog === null);

  return (
    <section aria-labelledby="everything-waiting" className="mt-6 flex flex-col gap-2">
      <h2 id="everything-waiting" className="text-lg font-medium">
        Everything waiting{' '}
        <span className="text-sm font-normal text-slate-400">
          · {waiting.length} across {reports.size} space{reports.size === 1 ? '' : 's'}
          {asked.length > 0 && ` · ${asked.length} question${asked.length === 1 ? '' : 's'}`} · j/k, a approve, r reject
        </span>
      </h2>
      {asked.length > 0 && (
        <ul aria-label="Questions" className="flex flex-col gap-2">
          {asked.map(({ space, question }) => (
            <li key={`${space}\u0000${question.message.id}`} className="flex flex-col gap-1">
              <span className="font-mono text-xs text-slate-400">{space}</span>
              <SpaceSessionScope session={reports.get(space)!.session}>
                <QuestionCard question={question} />
              </SpaceSessionScope>
            </li>
          ))}
        </ul>
      )}
      {waiting.length === 0 && asked.length === 0 && (
        <p className="rounded-lg border border-dashed border-slate-800 p-4 text-center text-sm text-slate-500">Nothing waits for you in any of your spaces.</p>
      )}
      <ul className="flex flex-col gap-2">
        {waiting.map((item) => {
          const report = reports.get(item.space)!;
          return (
            <li key={keyOf(item)} data-inbox-key={keyOf(item)} className="flex flex-col gap-1">
              <span className="font-mono text-xs text-slate-400">{item.space}</span>
              <SpaceSessionScope session={report.session}>
                <ProposalCard
                  proposal={item.proposal}
                  selected={selected !== undefined && keyOf(selected) === keyOf(item)}
                  checked={false}
                  onSelect={() => setSelectedKey(keyOf(item))}
                  onAction={(action) => act(item, action)}
                  basic
                />
              </SpaceSessionScope>
            </li>
          );
        })}
      </ul>
      {dialog?.type === 'confirm' && (
        <ConfirmDialog
          proposals={[dialog.item.proposal]}
          andThen="approve"
          onCancel={() => setDialog(null)}
          onConfirm={() => {
            setDialog(null);
            approve(dialog.item, true);
          }}
        />
      )}
      {dialog?.type === 'reject' && (
        <RejectDialog
          proposals={[dialog.item.proposal]}
          onCancel={() => setDialog(null)}
          onReject={(reason, explanation) => {
            setDialog(null);
            reports.get(dialog.item.space)?.actions.reject([dialog.item.proposal], reason, explanation);
          }}
        />
      )}
    </section>
  );
}
