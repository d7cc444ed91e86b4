'use client';

import { memo, useMemo } from 'react';
import type { Proposal } from '@/lib/store';
import { JsonBlock } from './json-block';
import { embeddedChanges, fileWrite, omitKeys, type FileWrite } from './proposal-content';
import { TextDiff } from './text-diff';
import { useCurrentFile, type CurrentFile } from './use-current-file';

/** The payload an approval would run: the arguments, with before/after content shown as a diff. */
export const ProposalArguments = memo(function ProposalArguments({ proposal }: { proposal: Proposal }) {
  const isToolCall = proposal.method === 'tools/call';
  const args = isToolCall ? proposal.arguments : proposal.params;
  const changes = useMemo(() => embeddedChanges(args), [args]);
  const write = useMemo(() => (changes.length === 0 ? fileWrite(proposal.toolName, args) : undefined), [changes, proposal.toolName, args]);
  const file = useCurrentFile(proposal, write);
  const fileDiffShown = write !== undefined && (file?.status === 'loaded' || file?.status === 'unreadable' || file?.status === 'absent');

  const hidden = useMemo(() => [...changes.flatMap((c) => c.keys), ...(fileDiffShown && write ? [write.contentKey] : [])], [changes, fileDiffShown, write]);
  const rest = useMemo(() => omitKeys(args, hidden), [args, hidden]);
  const label = isToolCall ? 'Arguments' : 'Params';

  return (
    <div className="flex min-w-0 flex-col gap-2">
      {args === undefined ? (
        <p className="text-xs text-slate-500">No {label.toLowerCase()}.</p>
      ) : (
        <JsonBlock value={rest} label={hidden.length > 0 ? `${label} (content shown as a diff below)` : label} />
      )}
      {changes.map((change) => (
        <TextDiff key={change.label} before={change.before} after={change.after} label={`${change.label}: old → new`} />
      ))}
      {write && <FileDiff write={write} file={file} target={proposal.target} decided={proposal.state !== 'pending'} />}
    </div>
  );
});

function FileDiff({ write, file, target, decided }: { write: FileWrite; file: CurrentFile | undefined; target?: string; decided: boolean }) {
  if (!file) return null;
  switch (file.status) {
    case 'loading':
      return (
        <p role="status" className="text-xs text-slate-400">
          Reading the current <span className="font-mono">{write.path}</span> from {target}…
        </p>
      );
    case 'unavailable':
      return <p className="text-xs text-slate-500">No diff against the current file: {file.why}.</p>;
    case 'loaded':
      return (
        <TextDiff
          before={file.text}
          after={write.content}
          label={`${write.path}: ${decided ? `as read from ${target} before the decision` : `current (read from ${target})`} → proposed`}
        />
      );
    case 'absent':
      return (
        <div className="flex flex-col gap-1">
          <p className="text-xs text-slate-400">
            New file: <span className="font-mono">{write.path}</span> does not exist on {target} yet.
          </p>
          <TextDiff before="" after={write.content} label={`${write.path}: proposed content`} />
        </div>
      );
    case 'unreadable':
      return (
        <div className="flex flex-col gap-1">
          <p className="text-xs text-amber-300">
            Could not read the current <span className="font-mono">{write.path}</span>: {file.message}. Showing the proposed content as new.
          </p>
          <TextDiff before="" after={write.content} label={`${write.path}: proposed content`} />
        </div>
      );
  }
}
