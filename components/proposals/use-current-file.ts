'use client';

import { useEffect, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import type { Proposal, ToolInfo } from '@/lib/store';
import { isRecordValue } from './json-value';
import { resultText, type FileWrite } from './proposal-content';
import { toolInfo } from './store-access';

/** What the target's `read_file` said about the file a proposal would overwrite. */
export type CurrentFile =
  | { status: 'unavailable'; why: string }
  | { status: 'loading' }
  | { status: 'loaded'; text: string; at: number }
  | { status: 'unreadable'; message: string; at: number }
  /** The target says there is no such file: the proposal creates it. */
  | { status: 'absent'; at: number };

/** How file servers say a file does not exist (Node's ENOENT, as the official filesystem server reports it, and plain words). */
const NO_SUCH_FILE = /\bENOENT\b|no such file|does not exist|not found/i;

const READ_TIMEOUT_MS = 10_000;
const CACHE_CAP = 200;
const READERS = ['read_file', 'read_text_file'] as const;

// One read per proposal, kept across re-mounts (virtualised rows come and go) and after the decision, so a decided
// proposal still shows the diff the approver saw.
const cache = new Map<string, Promise<CurrentFile>>();
const settled = new Map<string, CurrentFile>();

function remember(id: string, read: Promise<CurrentFile>): Promise<CurrentFile> {
  cache.set(id, read);
  if (cache.size > CACHE_CAP) {
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
    settled.delete(oldest);
  }
  void read.then((file) => cache.get(id) === read && settled.set(id, file));
  return read;
}

// The reader's own name for the path argument when its schema says, else the writer's.
function pathArgument(reader: ToolInfo, write: FileWrite): string {
  const props = isRecordValue(reader.inputSchema) && isRecordValue(reader.inputSchema.properties) ? reader.inputSchema.properties : undefined;
  if (!props || Object.hasOwn(props, write.pathKey)) return write.pathKey;
  return ['path', 'file_path', 'filePath', 'filename', 'file'].find((k) => Object.hasOwn(props, k)) ?? write.pathKey;
}

/**
 * The current content of the file a pending `write_file`-like proposal would replace, read by calling the target's
 * `read_file` with a direct `mcp/request` — only when my capabilities allow it: `mcpRequest` would otherwise fall
 * back to a proposal, and an approver must never create proposals just by looking.
 */
export function useCurrentFile(proposal: Proposal, write: FileWrite | undefined): CurrentFile | undefined {
  const { participant } = useSpaceSession();
  const target = proposal.target;
  const reader = useSpace((s) => toolInfo(s, target, READERS[0]) ?? toolInfo(s, target, READERS[1]));
  const pending = proposal.state === 'pending';
  const [file, setFile] = useState<CurrentFile | undefined>(() => settled.get(proposal.id));

  useEffect(() => {
    if (!write || !target) return setFile(undefined);
    const known = settled.get(proposal.id);
    if (known) return setFile(known);
    let live = true;
    const update = (next: CurrentFile) => live && setFile(next);
    let read = cache.get(proposal.id);
    if (!read) {
      if (!pending) return setFile(undefined); // the file has (maybe) changed since: a read now would mislead
      if (!reader) return setFile({ status: 'unavailable', why: `${target} offers no read_file tool` });
      const call = { method: 'tools/call', params: { name: reader.name, arguments: { [pathArgument(reader, write)]: write.path } } };
      if (!participant.canSend('mcp/request', { jsonrpc: '2.0', id: 0, ...call })) {
        return setFile({ status: 'unavailable', why: `your capabilities do not allow calling ${target}'s ${reader.name}` });
      }
      read = remember(
        proposal.id,
        participant.mcpRequest(target, call, READ_TIMEOUT_MS).then(
          (result): CurrentFile =>
            isRecordValue(result) && result.isError === true
              ? NO_SUCH_FILE.test(resultText(result))
                ? { status: 'absent', at: Date.now() }
                : { status: 'unreadable', message: resultText(result), at: Date.now() }
              : { status: 'loaded', text: resultText(result), at: Date.now() },
          (error: unknown): CurrentFile => ({ status: 'unreadable', message: error instanceof Error ? error.message : String(error), at: Date.now() }),
        ),
      );
    }
    update({ status: 'loading' });
    void read.then(update);
    return () => {
      live = false;
    };
  }, [participant, proposal.id, target, write, reader, pending]);

  return file;
}
