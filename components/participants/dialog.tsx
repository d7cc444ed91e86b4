'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal dialog on the native `<dialog>`: `showModal()` makes the rest of the page inert (the focus trap) and
 * Escape closes it; focus returns to whatever opened it, and starts on the element marked `data-autofocus`.
 * Children mount only while open, so every opening starts from a fresh form.
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  wide = false,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const descriptionId = useId();

  const wasOpen = useRef(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      // showModal focuses the first focusable element (the close button); a form names a better start.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open) {
      if (dialog.open) dialog.close();
      // Last, after the children (and whatever had focus among them) are gone, however it was closed.
      if (wasOpen.current) opener.current?.focus();
    }
    wasOpen.current = open;
  }, [open]);

  // Unmounting while open (the card left the list) must not leave the page inert.
  useEffect(() => () => ref.current?.close(), []);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault(); // Escape: let the owner decide, so `open` stays the single source of truth
        onClose();
      }}
      onClose={() => {
        if (open) onClose(); // closed by the browser itself (e.g. a repeated Escape), not by us
      }}
      className={`m-auto max-h-[calc(100dvh-2rem)] w-[calc(100%-1.5rem)] ${wide ? 'max-w-2xl' : 'max-w-md'} overflow-y-auto rounded-lg border border-slate-700 bg-slate-900 p-0 text-slate-100 shadow-2xl backdrop:bg-black/70`}
    >
      {open && (
        <div className="flex flex-col gap-3 p-4">
          <div className="flex items-start justify-between gap-3">
            <h2 id={titleId} className="text-base font-semibold">
              {title}
            </h2>
            <button
              type="button"
              onClick={onClose}
              aria-label="Close"
              className="-m-1 rounded px-2 py-0.5 text-lg leading-none text-slate-400 hover:bg-slate-800 hover:text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
            >
              ×
            </button>
          </div>
          {description && (
            <p id={descriptionId} className="text-sm text-slate-400">
              {description}
            </p>
          )}
          {children}
        </div>
      )}
    </dialog>
  );
}

/** Shared button looks, so every dialog reads the same. */
export const BUTTON = {
  primary:
    'rounded bg-sky-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-500 disabled:cursor-not-allowed disabled:bg-slate-700 disabled:text-slate-400 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-300',
  danger:
    'rounded bg-red-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-500 disabled:cursor-not-allowed disabled:bg-slate-700 disabled:text-slate-400 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-300',
  secondary:
    'rounded border border-slate-700 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800 disabled:cursor-not-allowed disabled:text-slate-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400',
  small:
    'rounded border border-slate-700 px-2 py-0.5 text-xs text-slate-200 hover:bg-slate-800 disabled:cursor-not-allowed disabled:text-slate-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400',
} as const;

/** Shared input looks. */
export const INPUT =
  'w-full rounded border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 placeholder:text-slate-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 aria-[invalid=true]:border-red-500';
