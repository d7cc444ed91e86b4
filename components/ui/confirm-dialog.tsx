'use client';

import type { ReactNode } from 'react';
import { Dialog, DialogFooter, type DialogProps } from './dialog';

/**
 * The extra question before an action that is risky or cannot be undone. Focus starts on Cancel, the least
 * destructive choice; Escape cancels too. The buttons wear the calling panel's looks.
 */
export function ConfirmDialog({
  confirmLabel,
  onConfirm,
  onCancel,
  classNames,
  children,
  ...dialog
}: Omit<DialogProps, 'onClose' | 'children'> & {
  confirmLabel: string;
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
          Cancel
        </button>
        <button type="button" className={classNames.confirm} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </DialogFooter>
    </Dialog>
  );
}
