'use client';

import { Dialog, DialogFooter } from '@/components/ui/dialog';
import { buttonClass } from './button-styles';
import { NOT_NOW_MINUTES } from './use-snoozes';

const SHORTCUTS = [
  ['j', 'Select the next proposal'],
  ['k', 'Select the previous proposal'],
  ['a', 'Approve the selected proposal'],
  ['e', 'Edit its arguments, then approve'],
  ['r', 'Reject it: type why at once, 1–8 pick a reason, Ctrl+Enter sends'],
  ['g', 'Always approve calls like this one: a rule of its narrowest shape, shown before you confirm'],
  ['x', 'Add it to / remove it from the batch selection'],
  ['n', `Not now: hide it from this browser for ${NOT_NOW_MINUTES} minutes (nobody is told no)`],
  ['?', 'Show this help'],
  ['Esc', 'Close a dialog'],
  ['Ctrl+Enter', 'Send from a dialog’s text box'],
] as const;

/** The proposal queue's keyboard shortcuts. They never fire while typing or while a dialog is open. Mounted only while open. */
export function HelpDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog
      open
      closeButton={false}
      title="Keyboard shortcuts"
      description="They work anywhere on the page, except while typing in a field or with a dialog open."
      onClose={onClose}
    >
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
        {SHORTCUTS.map(([key, what]) => (
          <div key={key} className="contents">
            <dt>
              <kbd className="rounded border border-slate-600 bg-slate-900 px-1.5 font-mono text-xs">{key}</kbd>
            </dt>
            <dd className="text-slate-300">{what}</dd>
          </div>
        ))}
      </dl>
      <DialogFooter>
        <button type="button" data-autofocus className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onClose}>
          Close
        </button>
      </DialogFooter>
    </Dialog>
  );
}
