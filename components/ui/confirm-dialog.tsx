'use client';

import type { ReactNode } from 'react';
import { Dialog, DialogFooter, type DialogProps } from './dialog';

/**
 * The one extra question before an action that is risky or cannot be undone (a process's Stop or Restart, Clear,
 * Shut down, Kick, cancelling a reasoning, a dangerous tool): its description says what will be lost. Focus starts
 * on Cancel, the least destructive choice; Escape cancels too. The buttons wear the calling panel's looks.
 */
export function ConfirmDialog({
  confirmLabel,
  cancelLabel = 'Cancel',
  onConfirm,
  onCancel,
  classNames,
  children,
  ...dialog
}: Omit<DialogProps, 'onClose' | 'children'> & {
  confirmLabel: string;
  /** The safe choice's words, when "Cancel" would be ambiguous (cancelling a reasoning: "Keep it running"). */
  cancelLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  classNames: { cancel: string; confirm: string };
  /** What the action applies to, between the description and the buttons. */
  children?: ReactNode;
}) {
  return (
    <Dialog {...dialog} onClose={onCancel}>
      {children}
      <DialogFooter>
        <button type="button" data-autofocus className={classNames.cancel} onClick={onCancel}>
          {cancelLabel}
        </button>
        <button type="button" className={classNames.confirm} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </DialogFooter>
    </Dialog>
  );
}
