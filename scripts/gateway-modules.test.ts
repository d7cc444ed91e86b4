import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort, spaceConfig, TestClient, tokenOf } from '../lib/gateway/testing';
import { buildServerIfStale } from './build-server.mjs';

/**
 * Preloaded into the gateway: a load hook (on node's loader thread) tells the main thread every module the process
 * imports (resolving a name, as `import.meta.resolve('tsx')` does, loads nothing); at exit that list, and the
 * CommonJS modules required, are written to the file MODULES_OUT names.
 */
const PROBE = `
import { createRequire, register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();
const hooks = 'let port; export function initialize(data) { port = data.port; }'
  + ' export async function load(url, context, next) { port.postMessage(url); return next(url, context); }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => {
  const required = Object.keys(createRequire(import.meta.url).cache);
  writeFileSync(process.env.MODULES_OUT, JSON.stringify([...loaded, ...required]));
});
`;

/** The packages among module paths or URLs (`node_modules/<name>` or `node_modules/@scope/<name>`). */
function packagesOf(modules: string[]): Set<string> {
  return new Set(modules.flatMap((m) => [...m.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((match) => match[1])));
}

describe('the gateway-only process', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runs compiled and loads no cluster, Web Push, MCP or OpenAI code in a single-process space that uses none of them', { timeout: 60_000 }, async () => {
    const { gateway: entry } = await buildServerIfStale({ quiet: true });
    const dir = mkdtempSync(join(tmpdir(), 'mew-modules-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    writeFileSync(join(dir, 'space.json'), JSON.stringify(spaceConfig('lean', { alice: [{ kind: 'chat' }], bob: [{ kind: 'chat' }] })));
    const port = await freePort();
    const gateway = spawn(process.execPath, ['--import', join(dir, 'probe.mjs'), entry], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        MEW_SPACE_CONFIG: join(dir, 'space.json'),
        MEW_DATA_DIR: dir,
        MODULES_OUT: join(dir, 'modules.json'),
        MEW_REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => gateway.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        gateway.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('MEW Dashboard') && resolve());
        gateway.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
      });
      // Ordinary traffic: two participants join and one chats to the other.
      const [alice, bob] = ['alice', 'bob'].map(
        (id) => new TestClient(new WebSocket(`ws://127.0.0.1:${port}/ws?space=lean`, { headers: { Authorization: `Bearer ${tokenOf(id)}` } })),
      );
      for (const client of [alice, bob]) await client.kind('system/welcome');
      alice.send({ id: 'hello', kind: 'chat', payload: { text: 'hello' } });
      await bob.next((f) => f.id === 'hello');
      for (const client of [alice, bob]) client.close();
    } finally {
      gateway.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const packages = packagesOf(JSON.parse(readFileSync(join(dir, 'modules.json'), 'utf8')) as string[]);
    // The probe saw what the gateway does load (so an empty list cannot pass)…
    expect(packages).toContain('ws');
    expect(packages).toContain('better-sqlite3');
    expect(packages).toContain('zod');
    // …and none of what this space does not use, nor the TypeScript loader.
    for (const unused of ['ioredis', 'web-push', 'openai', '@modelcontextprotocol/sdk', '@opentelemetry/api', 'tsx', 'esbuild'])
      expect(packages).not.toContain(unused);
  });
});
