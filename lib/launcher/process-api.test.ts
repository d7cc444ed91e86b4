import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';

/** Joins with the token it is handed and says hello, so a test sees it arrive. */
const JOINER = `
const WebSocket = require('ws');
const ws = new WebSocket(process.env.MEW_GATEWAY + '?space=' + process.env.MEW_SPACE, { headers: { Authorization: 'Bearer ' + process.env.MEW_TOKEN } });
ws.on('message', (data) => JSON.parse(String(data)).kind === 'system/welcome' && ws.send(JSON.stringify({ kind: 'chat', payload: { text: 'hello' } })));
ws.on('close', () => process.exit(1));
`;

describe('process endpoints', () => {
  let gw: TestGateway;

  beforeEach(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mew-process-api-'));
    writeFileSync(join(dir, 'participant.cjs'), JOINER);
    const config = {
      space: { id: 'ops' },
      participants: {
        human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
        viewer: { tokens: [tokenOf('viewer')], capabilities: [{ kind: 'chat' }] },
        coder: {
          capabilities: [{ kind: 'chat' }],
          command: process.execPath,
          args: ['participant.cjs'],
          cwd: dir,
          env: { MEW_TOKEN: '${TOKEN}', MEW_GATEWAY: '${GATEWAY}', MEW_SPACE: '${SPACE}', NODE_PATH: resolve('node_modules') },
          auto_start: false,
        },
      },
    };
    gw = await startGatewayWith({ configs: [config], dataDir: mkdtempSync(join(tmpdir(), 'mew-process-api-data-')), launch: { dataDir: dir } });
  });
  afterEach(async () => {
    await gw.close();
  });

  const call = async (path: string, who: string | undefined, method = 'GET') => {
    const response = await fetch(gw.httpUrl(`/api/spaces/ops/processes${path}`), { method, headers: who ? { Authorization: `Bearer ${tokenOf(who)}` } : {} });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('lists launched participants to any member, with the log only for those who may control them', async () => {
    expect(await call('', undefined)).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    const seen = await call('', 'viewer');
    expect(seen).toMatchObject({ status: 200, body: { processes: [{ participant: 'coder', state: 'stopped', restarts: 0 }] } });
    expect(seen.body.processes[0].tail).toBeUndefined();
    const operator = await call('', 'human');
    expect(operator.body.processes[0]).toMatchObject({ participant: 'coder', tail: [], log_file: expect.stringMatching(/ops\/logs\/coder\.log$/) });
  });

  it('starts, stops and restarts a process for whoever may send the matching control, and audits it', async () => {
    expect(await call('/coder/start', 'viewer', 'POST')).toMatchObject({ status: 403, body: { error: 'capability_violation' } });
    expect(await call('/nobody/start', 'human', 'POST')).toMatchObject({ status: 404, body: { error: 'unknown_participant' } });
    expect(await call('/coder/start', 'human', 'GET')).toMatchObject({ status: 405, body: { error: 'method_not_allowed' } });

    const human = await joinAs(gw, tokenOf('human'), 'space=ops');
    expect(await call('/coder/start', 'human', 'POST')).toMatchObject({ status: 202, body: { participant: 'coder', state: 'starting' } });
    await human.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000);
    expect(await call('/coder/stop', 'human', 'POST')).toMatchObject({ status: 202, body: { state: 'stopped', lastExit: { signal: 'SIGTERM' } } });
    expect(await call('/coder/restart', 'human', 'POST')).toMatchObject({ status: 202, body: { state: 'starting' } });
    await human.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000);

    await expect
      .poll(() => gw.audit.query({ space: 'ops', type: ['PROCESS_STARTED', 'PROCESS_STOPPED', 'PROCESS_RESTARTED'] }).map((e) => [e.type, e.actor, e.subject]))
      .toEqual([
        ['PROCESS_STARTED', 'human', 'coder'],
        ['PROCESS_STOPPED', 'human', 'coder'],
        ['PROCESS_RESTARTED', 'human', 'coder'],
      ]);
  });
});
