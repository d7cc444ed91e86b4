import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MEWParticipant } from '../sdk/mew-participant';
import { McpError } from '../sdk/sdk-errors';
import { DATABASE_FILE } from '../gateway/persistence/gateway-database';
import type { AgentRuntime } from './agent-runtime';
import { READ_FILE_MAX_BYTES } from './demo-defaults';
import { MGP_VALIDATION_BLOCKED, sandboxPath, startFilesAgent } from './files-agent';
import { DEMO_SPACE, collect, control, startDemoTestSpace, type DemoTestSpace } from './testing';
import { structuredResult, toolError } from './tool-result';

describe('files agent', () => {
  let space: DemoTestSpace;
  let files: AgentRuntime;
  let human: MEWParticipant;
  let sandbox: string;
  let outside: string;

  beforeEach(async () => {
    space = await startDemoTestSpace();
    files = space.track(await startFilesAgent(space.agentOptions('files')));
    human = await space.connect('human');
    sandbox = sandboxPath(space.dataDir, DEMO_SPACE);
    outside = await mkdtemp(join(tmpdir(), 'mew-outside-'));
    await writeFile(join(outside, 'secret.txt'), 'top secret');
  });
  afterEach(async () => {
    await space.close();
    await rm(outside, { recursive: true, force: true });
  });

  function call(name: string, args: Record<string, unknown>) {
    return human.mcpRequest('files', { method: 'tools/call', params: { name, arguments: args } }, 5000);
  }

  it('starts with a seeded sandbox and serves list_directory, read_file, write_file and delete_file', async () => {
    const root = structuredResult(await call('list_directory', {}));
    expect(root?.entries).toEqual([
      expect.objectContaining({ name: 'notes', type: 'directory' }),
      expect.objectContaining({ name: 'README.md', type: 'file' }),
    ]);

    const content = '# Hello\n\nÜnïcödé notes\n';
    const written = structuredResult(await call('write_file', { path: 'notes/new/today.md', content }));
    expect(written).toEqual({ path: 'notes/new/today.md', bytes_written: Buffer.byteLength(content), created: true });
    expect(await readFile(join(sandbox, 'notes/new/today.md'), 'utf8')).toBe(content);
    expect(structuredResult(await call('write_file', { path: 'notes/new/today.md', content: 'v2' }))).toMatchObject({ created: false, bytes_written: 2 });

    expect(structuredResult(await call('read_file', { path: 'notes/new/today.md' }))).toEqual({
      path: 'notes/new/today.md',
      content: 'v2',
      size: 2,
      truncated: false,
    });
    expect(structuredResult(await call('delete_file', { path: 'notes/new/today.md' }))).toEqual({ path: 'notes/new/today.md', deleted: true });
    expect(existsSync(join(sandbox, 'notes/new/today.md'))).toBe(false);
    // A missing file is an ordinary tool error, not a crash.
    expect(toolError(await call('delete_file', { path: 'notes/new/today.md' }))).toContain('does not exist');
  });

  it('writes whole files only: a listing during concurrent writes never shows one in progress, and none is left behind', async () => {
    const big = 'y'.repeat(200_000);
    const writes = Array.from({ length: 8 }, (_, i) => call('write_file', { path: `notes/w${i}.md`, content: big }));
    const listings = Array.from({ length: 8 }, () => call('list_directory', { path: 'notes' }));
    for (const listing of await Promise.all(listings)) {
      for (const entry of structuredResult(listing)?.entries as { name: string }[]) expect(entry.name).not.toMatch(/\.tmp$/);
    }
    await Promise.all(writes);
    const names = (structuredResult(await call('list_directory', { path: 'notes' }))?.entries as { name: string }[]).map((e) => e.name);
    for (let i = 0; i < 8; i++) expect(await readFile(join(sandbox, `notes/w${i}.md`), 'utf8')).toBe(big);
    expect(names.filter((n) => /^w\d\.md$/.test(n))).toHaveLength(8);
    expect((await readdir(join(sandbox, 'notes'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('caps what read_file returns and says it truncated', async () => {
    await writeFile(join(sandbox, 'big.txt'), 'x'.repeat(READ_FILE_MAX_BYTES + 100));
    const read = structuredResult(await call('read_file', { path: 'big.txt' }));
    expect(read).toMatchObject({ size: READ_FILE_MAX_BYTES + 100, truncated: true });
    expect((read?.content as string).length).toBe(READ_FILE_MAX_BYTES);
  });

  it('refuses every way out of the sandbox with a security error, and keeps serving', async () => {
    await symlink(join(outside, 'secret.txt'), join(sandbox, 'escape.txt'));
    await symlink(outside, join(sandbox, 'linked-dir'));
    await symlink(join(outside, 'nowhere'), join(sandbox, 'dangling.txt'));
    await mkdir(join(sandbox, 'notes'), { recursive: true });
    const attempts: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../../mew.sqlite' }],
      ['read_file', { path: '/etc/passwd' }],
      ['read_file', { path: 'notes/../../../mew.sqlite' }],
      ['read_file', { path: 'escape.txt' }],
      ['read_file', { path: 'linked-dir/secret.txt' }],
      ['list_directory', { path: 'linked-dir' }],
      ['write_file', { path: 'linked-dir/planted.txt', content: 'x' }],
      ['write_file', { path: 'linked-dir/new/planted.txt', content: 'x' }],
      ['write_file', { path: 'escape.txt', content: 'overwritten' }],
      ['write_file', { path: 'dangling.txt', content: 'x' }],
      ['delete_file', { path: 'escape.txt' }],
      ['delete_file', { path: '../../mew.sqlite' }],
    ];
    for (const [tool, args] of attempts) {
      const refused = await call(tool, args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused, `${tool} ${JSON.stringify(args)}`).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({
        code: MGP_VALIDATION_BLOCKED,
        reason: expect.stringMatching(/outside the sandbox/),
        data: { error: 'outside_sandbox', mgp: { category: 'security' } },
      });
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync(join(outside, 'new'))).toBe(false);
    expect(existsSync(join(outside, 'nowhere'))).toBe(false);
    expect(existsSync(join(space.dataDir, DATABASE_FILE))).toBe(true);
    expect(files.state).toBe('active');
    expect(structuredResult(await call('read_file', { path: 'README.md' }))?.content).toContain('Demo sandbox');
  });

  it('rejects arguments that do not match the input schema with a JSON-RPC error', async () => {
    await expect(call('write_file', { path: 'a.txt' })).rejects.toMatchObject({ code: -32602 });
    await expect(call('read_file', { path: 'a.txt', extra: 1 })).rejects.toMatchObject({ code: -32602 });
  });

  it('publishes MGP security metadata in tools/list, as another participant sees it', async () => {
    const auditor = await space.connect('auditor');
    const tools = await auditor.discovery.discover('files');
    const security = Object.fromEntries(tools.map((tool) => [tool.name, tool.security]));
    expect(security).toEqual({
      list_directory: { risk_level: 'safe', source: 'security' },
      read_file: { risk_level: 'safe', source: 'security' },
      write_file: { risk_level: 'moderate', side_effects: ['filesystem'], source: 'security' },
      delete_file: { risk_level: 'dangerous', confirmation_required: true, side_effects: ['filesystem'], reversible: false, source: 'security' },
    });
    expect(tools.find((tool) => tool.name === 'write_file')?.inputSchema).toMatchObject({ required: ['path', 'content'] });
  });

  it('reports a small, steady participant/status', async () => {
    const statuses = collect(human, (e) => e.kind === 'participant/status' && e.from === 'files');
    for (let i = 0; i < 20; i++) await call('list_directory', {});
    const request = control(human, 'files', 'participant/request-status');
    await expect.poll(() => statuses.find((s) => s.correlation_id?.includes(request))).toBeDefined();
    const status = statuses.find((s) => s.correlation_id?.includes(request))!.payload as Record<string, number>;
    expect(status).toMatchObject({ max_tokens: 2000, messages_in_context: 8 });
    expect(status.tokens).toBeLessThan(200);
    expect(status.latency_ms).toBeGreaterThanOrEqual(0);
  });
});
