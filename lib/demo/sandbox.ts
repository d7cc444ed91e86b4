import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ARCHIVE_DIRECTORY, NOTES_DIRECTORY } from './demo-defaults';

/** The sandbox of a space, the directory the demo's `files` server may touch: `<dataDir>/<space>/sandbox`. */
export function sandboxPath(dataDir: string, space: string): string {
  return join(dataDir, space, 'sandbox');
}

/** Files a fresh sandbox starts with, so the agents have something to list and read. */
const SEED_FILES: Record<string, string> = {
  'README.md': [
    '# Demo sandbox',
    '',
    'Files served by `files`, the official MCP filesystem server behind the MCP bridge. The scribe drafts meeting',
    `notes in \`${NOTES_DIRECTORY}/\` and archives old ones to \`${NOTES_DIRECTORY}/${ARCHIVE_DIRECTORY}/\` (by proposal: a human approves each`,
    'write and move); the auditor reads them directly and comments in chat.',
    '',
  ].join('\n'),
  [`${NOTES_DIRECTORY}/kickoff.md`]: [
    '# Project kickoff',
    '',
    '## Notes',
    '- The demo space has a human supervisor, a file tool provider, an untrusted scribe and a read-only auditor.',
    '',
    '## Action items',
    '- [x] Set up the demo space',
    '- [ ] Approve or reject the scribe proposals',
    '',
  ].join('\n'),
};

/**
 * Creates and seeds the sandbox the first time (the files of one that exists are left as they are), and makes sure
 * the archive directory exists: the filesystem server moves a file only into an existing directory. Synchronous: it
 * runs once, before the server that serves it starts.
 *
 * @example
 * seedSandbox(sandboxPath('data', 'demo')); // data/demo/sandbox/README.md, notes/kickoff.md, notes/archive/
 */
export function seedSandbox(root: string): string {
  if (!existsSync(root)) {
    for (const [path, text] of Object.entries(SEED_FILES)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  }
  mkdirSync(join(root, NOTES_DIRECTORY, ARCHIVE_DIRECTORY), { recursive: true });
  return root;
}
