import { constants, type Stats } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, open, readdir, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';
import { LIST_DIRECTORY_MAX_ENTRIES, NOTES_DIRECTORY, READ_FILE_MAX_BYTES, WRITE_FILE_MAX_BYTES } from './demo-defaults';

/** A write's temporary file (`.<name>.<uuid>.tmp`, renamed over `<name>` when complete): never listed. */
const WRITE_IN_PROGRESS = /^\..+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/** Why the sandbox refused an operation. `outside_sandbox` is the security refusal; the rest are ordinary failures. */
export type SandboxErrorCode = 'outside_sandbox' | 'not_found' | 'not_a_file' | 'not_a_directory' | 'too_large';

/** A refused or failed sandbox operation; the message is safe to show the caller (no host paths). */
export class SandboxError extends Error {
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** One `list` entry. */
export interface SandboxEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Last modification, ISO 8601. */
  modified: string;
}

/** Files a fresh sandbox starts with, so the agents have something to list and read. */
const SEED_FILES: Record<string, string> = {
  'README.md': [
    '# Demo sandbox',
    '',
    'Files served by the `files` agent. The scribe drafts meeting notes in `notes/` (by proposal: a human approves',
    'each write and delete); the auditor reads them directly and comments in chat.',
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
 * A directory that file tools may touch, and nothing outside it. Every path is relative to the root; `..`
 * segments and absolute paths are refused before touching the disk, and symlinks are resolved with `realpath`
 * so a link (or a linked parent directory) pointing outside is refused too. Writes open the file with
 * `O_NOFOLLOW`, so a link planted between the check and the write is not followed either.
 *
 * @example
 * const sandbox = await Sandbox.open('/data/demo/sandbox');
 * await sandbox.write('notes/today.md', '# Notes'); // 7 bytes
 * await sandbox.read('../etc/passwd'); // throws SandboxError('outside_sandbox')
 */
export class Sandbox {
  private constructor(
    /** The root's real path (the data directory itself may sit behind a symlink). */
    private readonly root: string,
  ) {}

  /** Opens (creating and seeding it the first time) the sandbox at `root`. */
  static async open(root: string): Promise<Sandbox> {
    const fresh = !(await exists(root));
    await mkdir(root, { recursive: true });
    const sandbox = new Sandbox(await realpath(root));
    if (fresh) for (const [path, text] of Object.entries(SEED_FILES)) await sandbox.write(path, text);
    return sandbox;
  }

  /** Lists a directory (`.` is the root), directories first, then by name. */
  async list(path = '.'): Promise<{ path: string; entries: SandboxEntry[]; truncated: boolean }> {
    const dir = await this.resolveExisting(path);
    if (!(await stat(dir)).isDirectory()) throw new SandboxError('not_a_directory', `${path} is not a directory`);
    const names = (await readdir(dir)).filter((name) => !WRITE_IN_PROGRESS.test(name)).sort();
    const entries = await Promise.all(names.slice(0, LIST_DIRECTORY_MAX_ENTRIES).map(async (name) => describe(name, await lstat(join(dir, name)))));
    entries.sort((a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || a.name.localeCompare(b.name));
    return { path, entries, truncated: names.length > LIST_DIRECTORY_MAX_ENTRIES };
  }

  /** Reads a file as UTF-8, at most `READ_FILE_MAX_BYTES` of it. */
  async read(path: string): Promise<{ path: string; content: string; size: number; truncated: boolean }> {
    const file = await this.resolveExisting(path);
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new SandboxError('not_a_file', `${path} is not a file`);
      const buffer = Buffer.alloc(Math.min(info.size, READ_FILE_MAX_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return { path, content: buffer.subarray(0, bytesRead).toString('utf8'), size: info.size, truncated: info.size > bytesRead };
    } finally {
      await handle.close();
    }
  }

  /** Creates or replaces a file (and its missing parent directories); returns the bytes written. */
  async write(path: string, content: string): Promise<{ path: string; bytes_written: number; created: boolean }> {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > WRITE_FILE_MAX_BYTES) throw new SandboxError('too_large', `content is ${bytes} bytes; the limit is ${WRITE_FILE_MAX_BYTES}`);
    const { target, existing } = await this.resolveForWrite(path);
    if (existing && !existing.isFile()) throw new SandboxError('not_a_file', `${path} is not a file`);
    await mkdir(dirname(target), { recursive: true });
    // Written beside the target, then renamed over it: a reader (another tool call, a listing) sees the old file
    // or the new one, never a half-written one, and a symlink at the target is replaced, never written through.
    const temporary = join(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, content, { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW });
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    return { path, bytes_written: bytes, created: !existing };
  }

  /** Deletes a file (not a directory); a symlink is removed itself, never its target. */
  async delete(path: string): Promise<{ path: string; deleted: true }> {
    const target = this.lexical(path);
    await this.resolveExisting(path);
    const info = await lstat(target);
    if (!info.isFile() && !info.isSymbolicLink()) throw new SandboxError('not_a_file', `${path} is not a file`);
    await unlink(target);
    return { path, deleted: true };
  }

  /** The path inside the root, by lexical checks only: no absolute paths, no `..`, nothing that leaves the root. */
  private lexical(path: string): string {
    const refuse = () => new SandboxError('outside_sandbox', `${JSON.stringify(path)} is outside the sandbox`);
    if (path.includes('\0') || isAbsolute(path) || win32.isAbsolute(path)) throw refuse();
    if (path.split(/[\\/]/).includes('..')) throw refuse();
    const target = resolve(this.root, path);
    if (!this.contains(target)) throw refuse();
    return target;
  }

  /** An existing path's real location, refused if it (or any link on the way) leads outside the root. */
  private async resolveExisting(path: string): Promise<string> {
    const target = this.lexical(path);
    // Missing, or a dangling link: either way there is nothing inside the sandbox to act on.
    const real = await realpath(target).catch(() => {
      throw new SandboxError('not_found', `${path} does not exist`);
    });
    return this.inside(real, path);
  }

  /**
   * Where a write lands: the existing file's real path, or the new path under a real, contained ancestor. A
   * dangling link (the target's or an ancestor's) resolves nowhere we can check, so it counts as leading out.
   */
  private async resolveForWrite(path: string): Promise<{ target: string; existing?: Stats }> {
    const target = this.lexical(path);
    if (await exists(target)) {
      const real = this.inside(await realpath(target).catch(() => undefined), path);
      return { target: real, existing: await stat(real) };
    }
    let ancestor = dirname(target);
    while (!(await exists(ancestor))) ancestor = dirname(ancestor);
    this.inside(await realpath(ancestor).catch(() => undefined), path);
    return { target };
  }

  private inside(real: string | undefined, path: string): string {
    if (real === undefined || !this.contains(real)) throw new SandboxError('outside_sandbox', `${JSON.stringify(path)} leads outside the sandbox`);
    return real;
  }

  private contains(absolute: string): boolean {
    const rel = relative(this.root, absolute);
    return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
  }
}

function describe(name: string, info: Stats): SandboxEntry {
  const type = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : info.isSymbolicLink() ? 'symlink' : 'other';
  return { name, type, size: info.size, modified: info.mtime.toISOString() };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
