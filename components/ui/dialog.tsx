'use client';

import { useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** The page's one toast region (sonner's `<Toaster>` in app/layout.tsx). */
const TOAST_REGION = 'section[aria-live][aria-label^="Notifications"]';

/**
 * While a modal is open everything outside it is inert and under its backdrop, toasts included (a popover shown
 * after it stays inert too). So the open dialog takes the page's toast region in, into its top layer, where toasts
 * show above the backdrop, are announced and can be clicked (Undo); closing puts it back where it was. One region,
 * moved, rather than a second one: a toast never shows twice.
 */
function adoptToasts(dialog: HTMLDialogElement): () => void {
  const region = document.querySelector<HTMLElement>(TOAST_REGION);
  if (!region) return () => undefined;
  const parent = region.parentNode;
  const next = region.nextSibling;
  dialog.append(region);
  return () => {
    if (region.parentNode !== dialog) return; // a dialog opened above took it, and gives it back to us first
    const home = parent?.isConnected ? parent : document.body;
    home.insertBefore(region, next?.parentNode === home ? next : null);
  };
}

const SIZES = { small: 'max-w-md', medium: 'max-w-lg', large: 'max-w-2xl', wide: 'max-w-6xl' } as const;

export interface DialogProps {
  open: boolean;
  /** Escape, the × button, or the browser closing it: the owner decides, usually by setting `open` to false. */
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  size?: keyof typeof SIZES;
  /** A × in the corner; dialogs whose buttons always include a Cancel or Close can do without. */
  closeButton?: boolean;
  children: ReactNode;
}

/**
 * A modal on the native `<dialog>`: `showModal()` makes the rest of the page inert, and a Tab loop keeps focus from
 * leaving for the browser's own UI. Focus starts on the element marked `data-autofocus` and returns to the opener
 * when `open` turns false or the dialog unmounts, however it was closed. `open` is the single source of truth;
 * the children mount only while open, so every opening starts from a fresh form.
 */
export function Dialog({ open, onClose, title, description, size = 'medium', closeButton = true, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  // Cleared before we close it ourselves, so that only a close by the browser itself is reported.
  const shown = useRef(false);

  // A layout effect: the page is inert (and hotkeys see a dialog open) in the same commit that rendered it open.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!open || !dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    shown.current = true;
    const giveToastsBack = adoptToasts(dialog);
    // showModal focuses the first focusable element (the × button); a form names a better start.
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      shown.current = false;
      giveToastsBack();
      if (dialog.open) dialog.close();
      // Runs after the children (and whatever had focus among them) are gone. No scrolling: in a virtualised
      // list the opener may have moved while the dialog was open.
      reconnected(opener)?.focus({ preventScroll: true });
    };
  }, [open]);

  const trapTab = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab') return;
    const items = [...(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault(); // Escape: the owner closes us through `open`
        onClose();
      }}
      onClose={() => {
        if (shown.current) onClose(); // the browser closed it itself (it lets a page cancel Escape only so often)
      }}
      onKeyDown={trapTab}
      className={`m-auto max-h-[calc(100dvh-2rem)] w-[calc(100%-1.5rem)] ${SIZES[size]} overflow-y-auto rounded-lg border border-slate-700 bg-slate-900 p-0 text-slate-100 shadow-2xl backdrop:bg-black/70`}
    >
      {open && (
        <div className="flex flex-col gap-3 p-4">
          <div className="flex items-start justify-between gap-3">
            <h2 id={titleId} className="text-base font-semibold">
              {title}
            </h2>
            {closeButton && (
              <button
                type="button"
                onClick={onClose}
                aria-label="Close"
                className="-m-1 rounded px-2 py-0.5 text-lg leading-none text-slate-400 hover:bg-slate-800 hover:text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
              >
                ×
              </button>
            )}
          </div>
          {description && (
            <div id={descriptionId} className="text-sm text-slate-300">
              {description}
            </div>
          )}
          {children}
        </div>
      )}
    </dialog>
  );
}

/**
 * A dialog's form. Submitting (the submit button, Enter in a field, or Ctrl/⌘+Enter in a text area, where Enter is
 * a newline) calls `onSubmit` instead of loading a page.
 */
export function DialogForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && event.target instanceof HTMLTextAreaElement) {
          event.preventDefault();
          onSubmit();
        }
      }}
    >
      {children}
    </form>
  );
}

/** The row of buttons that ends a dialog, right-aligned; a note put first with `mr-auto` stays on the left. */
export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="flex flex-wrap items-center justify-end gap-2">{children}</div>;
}

/**
 * The opener, or — when a re-render replaced it while the dialog was open (a card that moved between lists) —
 * the element that now carries its accessible label, so focus still lands where the user left it.
 */
function reconnected(opener: HTMLElement | null): HTMLElement | null {
  if (!opener || opener.isConnected) return opener;
  const label = opener.getAttribute('aria-label');
  return label ? document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(label)}"]`) : null;
}
