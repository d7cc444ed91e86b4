import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort, joinAs, spaceConfig, startTestGateway, TestClient, tokenOf, type TestGateway } from '../gateway/testing';
import { parseSpaceConfig } from '../gateway/space-config';
import { LAUNCH_SECTION, launchedOf } from './launch-config';
import { EnvelopeLogObserver } from './envelope-log-observer';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string; from: string; payload: { text?: string } });

describe('EnvelopeLogObserver', () => {
  let gw: TestGateway;
  afterEach(() => gw?.close());

  it('appends every envelope its participant receives to the file as JSON lines, and has them all on disk once stopped', async () => {
    gw = await startTestGateway(spaceConfig('obs', { lead: [{ kind: '*' }], client: [{ kind: 'chat' }] }));
    const file = join(mkdtempSync(join(tmpdir(), 'mew-observer-')), 'logs', 'client-output.log');
    const observer = new EnvelopeLogObserver({ gateway: gw.wsUrl(), space: 'obs', token: tokenOf('client'), file });
    await observer.start();
    const lead = await joinAs(gw, tokenOf('lead'));
    for (let i = 0; i < 50; i++) lead.send({ kind: 'chat', payload: { text: `note ${i}` } });
    await lead.next((frame) => frame.kind === 'chat' && frame.payload.text === 'note 49');
    await expect.poll(() => readFileSync(file, 'utf8').includes('"note 49"')).toBe(true);
    await observer.stop();
    const logged = lines(file);
    expect(logged[0]).toMatchObject({ kind: 'system/welcome' });
    expect(logged.filter((e) => e.kind === 'chat').map((e) => e.payload.text)).toEqual(Array.from({ length: 50 }, (_, i) => `note ${i}`));
    expect(logged.some((e) => e.kind === 'system/presence')).toBe(true);
    lead.close();
  });

  it('is what a config participant with auto_connect and output_log becomes (its file relative to the config), and nothing it launches', () => {
    const config = parseSpaceConfig(
      {
        space: { id: 's' },
        participants: { client: { output_log: './logs/client.jsonl', auto_connect: true }, quiet: { auto_connect: true }, plain: { output_log: 'x.log' } },
      },
      'space.yaml',
      { baseDir: '/srv/notes', sections: [LAUNCH_SECTION] },
    );
    const observer = (id: string) => launchedOf(config.participants.find((p) => p.id === id)!).observer;
    expect(observer('client')).toEqual({ outputLog: '/srv/notes/logs/client.jsonl' });
    expect(observer('quiet')).toEqual({});
    expect(observer('plain')).toBeUndefined();
  });

  it('is connected by the server itself: a config observer logs the space to its output_log, and the server and /health say so', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mew-observer-'));
    const config = join(dir, 'space.json');
    writeFileSync(
      config,
      JSON.stringify({
        space: { id: 'watched' },
        participants: {
          human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
          client: { tokens: [tokenOf('client')], output_log: './logs/client-output.log', auto_connect: true },
        },
      }),
    );
    const port = await freePort();
    const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MEW_SPACE_CONFIG: config, MEW_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      let printed = '';
      await new Promise<void>((resolve, reject) => {
        server.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()).includes('client: observer') && resolve());
        server.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${printed}`)));
      });
      const health = async () => ((await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { spaces: { connected: number }[] }).spaces[0].connected;
      await expect.poll(health).toBe(1); // the observer, joined by the server
      const human = new TestClient(new WebSocket(`ws://127.0.0.1:${port}/ws?space=watched`, { headers: { Authorization: `Bearer ${tokenOf('human')}` } }));
      await human.kind('system/welcome');
      human.send({ kind: 'chat', payload: { text: 'for the record' } });
      const file = join(dir, 'logs', 'client-output.log');
      await expect.poll(() => existsSync(file) && readFileSync(file, 'utf8').includes('for the record')).toBe(true);
      human.close();
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
    expect(lines(join(dir, 'logs', 'client-output.log')).some((e) => e.kind === 'chat' && e.from === 'human')).toBe(true);
  });
});
