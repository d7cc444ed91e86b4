'use client';

import { useEffect, useState } from 'react';

const BUTTON =
  'rounded border border-slate-700 px-2 py-0.5 text-xs text-slate-200 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';

/**
 * A button that copies `value` to the clipboard, named by its visible text (`Copy token`), with the outcome announced
 * beside it (a live region: "Copied", or how to copy by hand). The feedback stays next to the button, inside any modal
 * that covers the page's toasts.
 */
export function CopyButton({ value, children }: { value: string; children: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  useEffect(() => {
    if (copied !== 'yes') return;
    const timer = setTimeout(() => setCopied(undefined), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        onClick={() =>
          // Without a secure context there is no clipboard API: that throws, and is said like a refusal.
          Promise.resolve()
            .then(() => navigator.clipboard.writeText(value))
            .then(
              () => setCopied('yes'),
              () => setCopied('failed'),
            )
        }
        className={BUTTON}
      >
        {children}
      </button>
      <span role="status" className={`text-xs ${copied === 'failed' ? 'text-red-300' : 'text-emerald-300'}`}>
        {copied === 'yes' && 'Copied'}
        {copied === 'failed' && 'Could not copy: select the text and copy it by hand.'}
      </span>
    </span>
  );
}
