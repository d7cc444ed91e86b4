'use client';

import { structuredPatch } from 'diff';
import { memo, useMemo } from 'react';

const CONTEXT_LINES = 3;
// Beyond this, jsdiff's line diff gets slow enough to stall the main thread; show sizes instead.
const MAX_DIFF_CHARS = 400_000;

interface Row {
  kind: 'add' | 'del' | 'ctx' | 'note' | 'gap';
  text: string;
  oldNo?: number;
  newNo?: number;
}

function rowsOf(before: string, after: string): Row[] {
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context: CONTEXT_LINES });
  const rows: Row[] = [];
  for (const hunk of patch.hunks) {
    rows.push({ kind: 'gap', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    for (const line of hunk.lines) {
      const body = line.slice(1);
      if (line.startsWith('+')) rows.push({ kind: 'add', text: body, newNo: newNo++ });
      else if (line.startsWith('-')) rows.push({ kind: 'del', text: body, oldNo: oldNo++ });
      else if (line.startsWith('\\')) rows.push({ kind: 'note', text: line.slice(2) });
      else rows.push({ kind: 'ctx', text: body, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return rows;
}

const TONE: Record<Row['kind'], string> = {
  add: 'bg-emerald-950/70 text-emerald-200',
  del: 'bg-red-950/70 text-red-200',
  ctx: 'text-slate-300',
  note: 'italic text-slate-500',
  gap: 'bg-slate-900 text-sky-300/80',
};
const SIGN: Record<Row['kind'], string> = { add: '+', del: '-', ctx: ' ', note: ' ', gap: ' ' };

/** A unified line diff (jsdiff) with line numbers; additions green, removals red, 3 lines of context. */
export const TextDiff = memo(function TextDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const tooLarge = before.length + after.length > MAX_DIFF_CHARS;
  const rows = useMemo(() => (tooLarge ? [] : rowsOf(before, after)), [before, after, tooLarge]);
  const added = rows.filter((r) => r.kind === 'add').length;
  const removed = rows.filter((r) => r.kind === 'del').length;

  return (
    <figure className="overflow-hidden rounded border border-slate-800">
      <figcaption className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-800 bg-slate-900 px-2 py-1 text-[11px] text-slate-400">
        <span>{label}</span>
        {!tooLarge && (
          <span>
            <span className="text-emerald-300">+{added}</span> <span className="text-red-300">−{removed}</span>
          </span>
        )}
      </figcaption>
      {tooLarge ? (
        <p className="px-2 py-1 text-xs text-slate-400">
          Too large to diff here ({before.length.toLocaleString()} → {after.length.toLocaleString()} characters).
        </p>
      ) : rows.length === 0 ? (
        <p className="px-2 py-1 text-xs text-slate-400">No changes: the content is identical.</p>
      ) : (
        <div className="max-h-72 overflow-auto">
          <table className="w-full border-collapse font-mono text-xs leading-5">
            <tbody>
              {rows.map((row, i) => (
                <tr key={i} className={TONE[row.kind]}>
                  <td className="w-8 select-none px-1 text-right text-slate-400">{row.oldNo ?? ''}</td>
                  <td className="w-8 select-none px-1 text-right text-slate-400">{row.newNo ?? ''}</td>
                  <td className="w-3 select-none text-center">
                    <span aria-hidden="true">{SIGN[row.kind]}</span>
                    {row.kind === 'add' && <span className="sr-only">added</span>}
                    {row.kind === 'del' && <span className="sr-only">removed</span>}
                  </td>
                  <td className="whitespace-pre-wrap break-all pr-2">{row.text}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
});
