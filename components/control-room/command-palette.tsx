'use client';

import { Command } from 'cmdk';
import { useState, type Dispatch, type SetStateAction } from 'react';
import { useHotkeys } from 'react-hotkeys-hook';
import { toast } from 'sonner';
import { jumpToProposal } from '@/components/proposals/jump-to-proposal';
import { useAuditView } from '@/components/audit/audit-view';
import { useRules } from '@/components/rules/rules-context';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { participantList, pendingProposals, reasoningThreads } from '@/lib/store';
import { useSignOut } from './use-sign-out';

/** The header's way into the palette (wider screens; on a phone the user menu has it), with its key for this platform. */
export function CommandsButton({ onOpen }: { onOpen: () => void }) {
  const [mac] = useState(() => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform));
  return (
    <button
      type="button"
      onClick={onOpen}
      aria-keyshortcuts={mac ? 'Meta+K' : 'Control+K'}
      className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
    >
      Commands <kbd className="ml-1 text-slate-500">{mac ? '⌘K' : 'Ctrl K'}</kbd>
    </button>
  );
}

/**
 * Ctrl/⌘+K: everything an operator does often, by name — jump to a proposal, pause, resume or ask any
 * participant for its status, cancel live reasoning, open the audit log or the rules, sign out. Actions go through
 * `participant.operate` like the buttons do. Its owner holds whether it is open (the header and the user menu open it).
 */
export function CommandPalette({ open, setOpen }: { open: boolean; setOpen: Dispatch<SetStateAction<boolean>> }) {
  const { participant, space } = useSpaceSession();
  const audit = useAuditView();
  const rules = useRules();
  const signOut = useSignOut();
  const me = useSpace((s) => s.connection.me);
  const participants = useSpace(participantList);
  const pending = useSpace(pendingProposals);
  const live = useSpace((s) => reasoningThreads(s, { state: 'live' }));

  useHotkeys(
    'mod+k',
    (event) => {
      event.preventDefault();
      setOpen((o) => !o);
    },
    { enableOnFormTags: true },
  );

  function run(label: string, action: () => void) {
    setOpen(false);
    try {
      action();
    } catch (e) {
      toast.error(`${label} failed`, { description: (e as Error).message });
    }
  }

  const others = participants.filter((p) => p.id !== me && p.online);

  return (
    <Command.Dialog
      open={open}
      onOpenChange={setOpen}
      label="Command palette"
      overlayClassName="fixed inset-0 z-50 bg-black/60"
      contentClassName="fixed left-1/2 top-[12vh] z-50 w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 overflow-hidden rounded-lg border border-slate-700 bg-slate-900 shadow-2xl"
    >
      <Command.Input
        autoFocus
        placeholder="Type a command or a participant…"
        className="w-full border-b border-slate-800 bg-transparent px-3 py-2.5 text-sm outline-none placeholder:text-slate-500"
      />
      <Command.List className="max-h-80 overflow-y-auto p-1 text-sm">
        <Command.Empty className="px-3 py-2 text-slate-500">No matching command.</Command.Empty>
        {pending.length > 0 && (
          <Command.Group heading="Pending proposals" className="px-1 text-xs text-slate-500">
            {pending.map((p) => (
              <Command.Item
                key={p.id}
                value={`proposal ${p.proposer} ${p.toolName ?? p.method} ${p.id}`}
                onSelect={() => run('Jump', () => jumpToProposal(p.id))}
                className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
              >
                Jump to {p.proposer}’s {p.toolName ?? p.method}
              </Command.Item>
            ))}
          </Command.Group>
        )}
        <Command.Group heading="Participants" className="px-1 text-xs text-slate-500">
          {others.flatMap((p) => [
            <Command.Item
              key={`pause-${p.id}`}
              value={`pause ${p.id}`}
              onSelect={() => run(`Pause ${p.id}`, () => participant.operate.pause(p.id))}
              className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
            >
              Pause {p.id}
            </Command.Item>,
            <Command.Item
              key={`resume-${p.id}`}
              value={`resume ${p.id}`}
              onSelect={() => run(`Resume ${p.id}`, () => participant.operate.resume(p.id))}
              className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
            >
              Resume {p.id}
            </Command.Item>,
            <Command.Item
              key={`status-${p.id}`}
              value={`request status ${p.id}`}
              onSelect={() => run(`Status of ${p.id}`, () => participant.operate.requestStatus(p.id))}
              className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
            >
              Request status from {p.id}
            </Command.Item>,
          ])}
        </Command.Group>
        {live.length > 0 && (
          <Command.Group heading="Live reasoning" className="px-1 text-xs text-slate-500">
            {live.map((t) => (
              <Command.Item
                key={t.id}
                value={`cancel reasoning ${t.from} ${t.id}`}
                onSelect={() => run('Cancel reasoning', () => participant.operate.cancelReasoning(t.from, t.id, { reason: 'cancelled by human' }))}
                className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
              >
                Cancel {t.from}’s reasoning
              </Command.Item>
            ))}
          </Command.Group>
        )}
        {audit.mayRead && (
          <Command.Group heading="Audit and rules" className="px-1 text-xs text-slate-500">
            <Command.Item
              value="open audit log"
              onSelect={() => run('Open the audit log', () => audit.open())}
              className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
            >
              Open the audit log
            </Command.Item>
            <Command.Item
              value="open approval rules"
              onSelect={() => run('Open the approval rules', () => rules.open())}
              className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
            >
              Open the approval rules
            </Command.Item>
          </Command.Group>
        )}
        <Command.Group heading="Session" className="px-1 text-xs text-slate-500">
          <Command.Item
            value="sign out"
            onSelect={() => run('Sign out', signOut)}
            className="cursor-pointer rounded px-2 py-1.5 text-slate-200 aria-selected:bg-slate-800"
          >
            Sign out of {space}
          </Command.Item>
        </Command.Group>
      </Command.List>
    </Command.Dialog>
  );
}
