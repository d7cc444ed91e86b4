'use client';

import { memo, useMemo } from 'react';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';
import type { Proposal } from '@/lib/store';
import { JsonBlock } from './json-block';
import { embeddedChanges, fileWrite, omitKeys, type FileWrite } from './proposal-content';
import { TextDiff } from './text-diff';
import { useCurrentFile, type CurrentFile } from './use-current-file';

/**
 * The payload an approval would run: the arguments, with before/after content shown as a diff. Secrets in them show
 * masked (`ghp_…abcd`, values of secret-named fields), saying "secret masked", so an approver still sees which
 * argument holds one; an operator reveals them, audited, as in the envelope log (revealed-secrets.tsx).
 */
export const ProposalArguments = memo(function ProposalArguments({ proposal }: { proposal: Proposal }) {
  const isToolCall = proposal.method === 'tools/call';
  const raw = isToolCall ? proposal.arguments : proposal.params;
  const { shown: args, secret, revealed } = useMaskedValue(proposal.id, raw);
  const changes = useMemo(() => embeddedChanges(args), [args]);
  // The target's file is read at its real path; what is shown of the write (its content) is masked.
  const readWrite = useMemo(() => (changes.length === 0 ? fileWrite(proposal.toolName, raw) : undefined), [changes.length, proposal.toolName, raw]);
  const write = useMemo(() => (readWrite ? fileWrite(proposal.toolName, args) : undefined), [readWrite, proposal.toolName, args]);
  const file = useCurrentFile(proposal, readWrite);
  const fileDiffShown = write !== undefined && (file?.status === 'loaded' || file?.status === 'unreadable' || file?.status === 'absent');
  const current = useMaskedValue(proposal.id, file?.status === 'loaded' ? file.text : file?.status === 'unreadable' ? file.message : undefined);
  const anySecret = secret || current.secret;

  const hidden = useMemo(() => [...changes.flatMap((c) => c.keys), ...(fileDiffShown && write ? [write.contentKey] : [])], [changes, fileDiffShown, write]);
  const rest = useMemo(() => omitKeys(args, hidden), [args, hidden]);
  const label = `${isToolCall ? 'Arguments' : 'Params'}${hidden.length > 0 ? ' (content shown as a diff below)' : ''}${secret && !revealed ? ', secret masked' : ''}`;

  return (
    <div className="flex min-w-0 flex-col gap-2">
      {anySecret && <SecretMask envelopeId={proposal.id} what="proposal" />}
      {raw === undefined ? <p className="text-xs text-slate-500">No {isToolCall ? 'arguments' : 'params'}.</p> : <JsonBlock value={rest} label={label} />}
      {changes.map((change) => (
        <TextDiff key={change.label} before={change.before} after={change.after} label={`${change.label}: old → new`} />
      ))}
      {write && <FileDiff write={write} file={file} shownText={current.shown} target={proposal.target} decided={proposal.state !== 'pending'} />}
    </div>
  );
});

function FileDiff({
  write,
  file,
  shownText,
  target,
  decided,
}: {
  write: FileWrite;
  file: CurrentFile | undefined;
  /** The file's text (or why it was unreadable) as shown: masked like the arguments. */
  shownText: string | undefined;
  target?: string;
  decided: boolean;
}) {
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
          before={shownText ?? ''}
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
            Could not read the current <span className="font-mono">{write.path}</span>: {shownText}. Showing the proposed content as new.
          </p>
          <TextDiff before="" after={write.content} label={`${write.path}: proposed content`} />
        </div>
      );
  }
}
