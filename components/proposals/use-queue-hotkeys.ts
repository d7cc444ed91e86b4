'use client';

import { useHotkeys } from 'react-hotkeys-hook';

/** The queue's single-key shortcuts (see HelpDialog). */
export type QueueKey = 'j' | 'k' | 'a' | 'e' | 'r' | 'g' | 'x' | 'n' | '?';

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** True while the user is typing: text fields, selects, editable content, ARIA text widgets. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !NON_TEXT_INPUTS.has(target.type);
  const role = target.getAttribute('role');
  return role === 'textbox' || role === 'combobox' || role === 'searchbox' || role === 'spinbutton';
}

/** True while any dialog is open on the page, ours or another panel's (command palette, …). */
export function isDialogOpen(): boolean {
  return document.querySelector('dialog[open], [role="dialog"], [role="alertdialog"], [aria-modal="true"]') !== null;
}

/**
 * Binds the queue's keys. Keys are matched by the character produced (so they follow the keyboard layout) and
 * never fire with Ctrl/Alt/Meta, while typing, or while a dialog is open. Checkboxes do not count as typing, so
 * `j`/`k` keep working after ticking one.
 */
export function useQueueHotkeys(onKey: (key: QueueKey) => void, enabled: boolean) {
  const options = {
    useKey: true,
    enableOnFormTags: true,
    ignoreEventWhen: (event: KeyboardEvent) => isTypingTarget(event.target) || event.ctrlKey || event.metaKey || event.altKey,
    enabled: () => enabled && !isDialogOpen(),
  };
  useHotkeys(
    'j,k,a,e,r,g,x,n',
    (event, hotkey) => {
      event.preventDefault();
      onKey(hotkey.keys?.[0] as QueueKey);
    },
    options,
    [onKey],
  );
  // `?` needs Shift on most layouts, so modifiers are ignored for it alone.
  useHotkeys(
    '?',
    (event) => {
      event.preventDefault();
      onKey('?');
    },
    { ...options, ignoreModifiers: true },
    [onKey],
  );
}
