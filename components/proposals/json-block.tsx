'use client';

import { memo, useMemo } from 'react';
import { prettyJson } from './proposal-content';

// Pretty-printing megabytes per card would stall the queue; the head is enough to judge, the rest is counted.
const MAX_SHOWN_CHARS = 20_000;

/** Pretty JSON in a scrollable block, truncated (and saying so) when very large. */
export const JsonBlock = memo(function JsonBlock({ value, label }: { value: unknown; label: string }) {
  const text = useMemo(() => prettyJson(value), [value]);
  const shown = text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) : text;
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className="max-h-60 overflow-auto rounded border border-slate-800 bg-slate-900/60 p-2 font-mono text-xs leading-5 whitespace-pre-wrap break-all text-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
    >
      {shown}
      {shown !== text && <span className="text-slate-500">{`\n… ${(text.length - shown.length).toLocaleString()} more characters`}</span>}
    </pre>
  );
});
