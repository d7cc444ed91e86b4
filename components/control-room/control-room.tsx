'use client';

import { useState } from 'react';
import { AuditViewProvider, useAuditView } from '@/components/audit/audit-view';
import { useSpaceSession } from '@/components/session/space-session';
import { ParticipantsRail } from '@/components/participants/participants-rail';
import { ProposalQueue } from '@/components/proposals/proposal-queue';
import { ChatPanel } from '@/components/watch/chat-panel';
import { EnvelopeLog } from '@/components/watch/envelope-log';
import { ErrorToasts } from '@/components/watch/error-toasts';
import { ReasoningPanel } from '@/components/watch/reasoning-panel';
import { SecurityFeed } from '@/components/watch/security-feed';
import { TelemetryPanel } from '@/components/watch/telemetry-panel';
import { RulesProvider, useRules } from '@/components/rules/rules-context';
import { NotifyToggle } from '@/components/attention/notify-toggle';
import { PendingAttention } from '@/components/attention/pending-attention';
import { AlertHealthProvider } from '@/components/notify/alert-health';
import { NotifyControls } from '@/components/notify/notify-controls';
import { AccountMenu } from './account-menu';
import { CommandPalette, CommandsButton } from './command-palette';
import { SkipLink } from '@/components/ui/skip-link';
import { ConnectionBadge } from './connection-badge';
import { ToolsButton, ToolsViewProvider } from '@/components/tools/tools-view';

/**
 * One screen per space: participants rail · proposal queue and reasoning · chat, telemetry, security events and the
 * envelope log. On a wide screen (from 1024 px) the page itself does not scroll: each column is one scroll surface of its own, so
 * chat is on screen next to the queue. Columns collapse to one on narrow screens, in order of urgency (proposals
 * first); the header keeps one row there, its buttons in the user menu. A skip link leads past both to the queue.
 */
export function ControlRoom() {
  return (
    <AuditViewProvider>
      <RulesProvider>
        <AlertHealthProvider>
          <ToolsViewProvider>
            <ControlRoomLayout />
          </ToolsViewProvider>
        </AlertHealthProvider>
      </RulesProvider>
    </AuditViewProvider>
  );
}

/** A column on a wide screen: its own scroll surface, the page's height, with room below its last panel. */
const COLUMN = 'lg:min-h-0 lg:overflow-y-auto lg:overscroll-contain lg:pb-3';

function ControlRoomLayout() {
  const { space } = useSpaceSession();
  const audit = useAuditView();
  const rules = useRules();
  const [paletteOpen, setPaletteOpen] = useState(false);
  return (
    <div className="flex min-h-screen flex-col lg:h-dvh lg:min-h-0 lg:overflow-hidden">
      <SkipLink target="proposal-queue-heading" first="[data-proposal-id]" label="Skip to the proposal queue" />
      <header className="flex items-center gap-2 border-b border-slate-800 px-3 py-2 sm:gap-3 sm:px-4">
        <h1 className="min-w-0 truncate text-base font-semibold">
          <span className="hidden sm:inline">
            MEW Dashboard <span className="font-normal text-slate-400">· </span>
          </span>
          <span className="sm:font-normal sm:text-slate-400">{space}</span>
        </h1>
        <ConnectionBadge />
        <PendingAttention />
        <div className="ml-auto hidden flex-wrap items-center justify-end gap-2 sm:flex">
          <CommandsButton onOpen={() => setPaletteOpen(true)} />
          <NotifyToggle />
          <NotifyControls />
          <ToolsButton />
          {audit.mayRead && (
            <button
              type="button"
              onClick={() => audit.open()}
              className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
            >
              Audit log
            </button>
          )}
          {rules.mayManage && (
            <button
              type="button"
              onClick={() => rules.open()}
              className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
            >
              Rules{rules.rules.length > 0 ? ` (${rules.rules.length})` : ''}
            </button>
          )}
        </div>
        <AccountMenu onCommands={() => setPaletteOpen(true)} />
      </header>
      <CommandPalette open={paletteOpen} setOpen={setPaletteOpen} />
      <main className="grid flex-1 grid-cols-1 gap-3 p-3 lg:min-h-0 lg:grid-cols-[15rem_minmax(0,1fr)_20rem] lg:grid-rows-[minmax(0,1fr)] lg:pb-0 xl:grid-cols-[17rem_minmax(0,1fr)_24rem]">
        <div className={`order-2 lg:order-1 ${COLUMN}`}>
          <ParticipantsRail />
        </div>
        <div className={`order-1 flex min-w-0 flex-col gap-3 lg:order-2 ${COLUMN}`}>
          <ProposalQueue />
          <ReasoningPanel />
        </div>
        <div className={`order-3 flex min-w-0 flex-col gap-3 ${COLUMN}`}>
          <ChatPanel />
          <TelemetryPanel />
          <SecurityFeed />
          <EnvelopeLog />
        </div>
      </main>
      <ErrorToasts />
    </div>
  );
}
