import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AuditLog } from './audit';
import { DATABASE_FILE } from './persistence/gateway-database';
import { freePort, TestClient, tokenOf } from './testing';

const GRANTS = 5;

describe('audit durability', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the audit record of every acknowledged grant when the gateway is killed right after (kill -9)', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mew-durable-'));
    dirs.push(dir);
    const config = join(dir, 'space.json');
    writeFileSync(
      config,
      JSON.stringify({
        space: { id: 'durable' },
        participants: {
          human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
          bob: { tokens: [tokenOf('bob')], capabilities: [{ kind: 'chat' }] },
        },
      }),
    );
    const port = await freePort();
    const gateway = spawn(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MEW_SPACE_CONFIG: config, MEW_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        gateway.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('MEW Dashboard') && resolve());
        gateway.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
      });
      const human = new TestClient(new WebSocket(`ws://127.0.0.1:${port}/ws?space=durable`, { headers: { Authorization: `Bearer ${tokenOf('human')}` } }));
      await human.opened;
      await human.kind('system/welcome');
      for (let i = 0; i < GRANTS; i++) {
        human.send({
          id: `grant-${i}`,
          kind: 'capability/grant',
          payload: { recipient: 'bob', capabilities: [{ kind: 'mcp/request', payload: { method: `tools/${i}` } }] },
        });
      }
      // The sender's copy of each grant is its acknowledgement: the grant is in effect.
      for (let i = 0; i < GRANTS; i++) await human.next((f) => f.id === `grant-${i}`, 10_000);
    } finally {
      gateway.kill('SIGKILL');
      await exited;
    }
    const log = AuditLog.open(join(dir, DATABASE_FILE));
    try {
      const grants = log.query({ space: 'durable', type: 'ACCESS_GRANTED' });
      expect(grants.map((e) => e.envelope_id)).toEqual(Array.from({ length: GRANTS }, (_, i) => `grant-${i}`));
      expect(log.verify('durable')).toEqual({ ok: true });
    } finally {
      log.close();
    }
  });
});
