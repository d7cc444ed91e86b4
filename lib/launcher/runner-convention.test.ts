import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeProcess } from '../bridge/bridge-process';
import { loadSpaceConfig } from '../gateway/space-config';
import { LAUNCH_SECTION, launchedOf } from './launch-config';
import { spaceConfig, startTestGateway, type TestGateway } from '../gateway/testing';
import { agentProcess } from './agent-process';
import { readRunnerConnection, RUNNER_ENV, RUNNER_EXIT_CODES, RUNNER_EXIT_POLICY, runnerConnectionEnv } from './runner-convention';

const runner = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe('the runner convention', () => {
  it('reads the connection from MEW_GATEWAY, MEW_SPACE and MEW_TOKEN (flags first), and takes the token out of the environment', () => {
    const env: Record<string, string | undefined> = { MEW_GATEWAY: 'ws://gateway/ws', MEW_SPACE: 'team', MEW_TOKEN: 'secret' };
    expect(readRunnerConnection({}, env)).toEqual({ gateway: 'ws://gateway/ws', space: 'team', token: 'secret' });
    expect(env).toEqual({ MEW_GATEWAY: 'ws://gateway/ws', MEW_SPACE: 'team' });
    expect(readRunnerConnection({ gateway: 'ws://flag/ws', token: 'flag' }, { MEW_GATEWAY: 'ws://env/ws', MEW_SPACE: 'team' })).toEqual({
      gateway: 'ws://flag/ws',
      space: 'team',
      token: 'flag',
    });
    // The demo's former name is no alias: nothing outside this repository ever set it.
    expect(readRunnerConnection({}, { MEW_GATEWAY_URL: 'ws://old/ws', MEW_SPACE: '' })).toEqual({ gateway: undefined, space: undefined, token: undefined });
  });

  it('is what every launcher hands its runner: the connection under the same names, and the same exit policy', () => {
    const connection = runnerConnectionEnv();
    expect(connection).toEqual({ MEW_GATEWAY: '${GATEWAY}', MEW_SPACE: '${SPACE}', MEW_TOKEN: '${TOKEN}' });
    const agent = agentProcess({ model: 'llama3', base_url: 'http://127.0.0.1:11434/v1' }, {});
    const bridge = bridgeProcess({ command: 'npx', args: ['mcp-server-filesystem', '.'], env: { DEBUG: '1' } });
    // The demo's live participants are config entries (`bridge:`, `command:`), under the same convention.
    const demoConfig = loadSpaceConfig(runner('../demo/demo-space.yaml'), { sections: [LAUNCH_SECTION], env: {} });
    const demo = demoConfig.participants.flatMap((p) => launchedOf(p).launch ?? []);
    expect(demo).toHaveLength(4);
    for (const spec of [agent, bridge, ...demo]) {
      expect(spec.env).toMatchObject(connection);
      expect(spec).toMatchObject(RUNNER_EXIT_POLICY);
    }
    expect(Object.keys(agent.env)).toContain(RUNNER_ENV.agentSettings);
    expect(bridge.env.DEBUG).toBe('1');
  });
});

describe('each runner under the convention', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(spaceConfig('runners', { human: [{ kind: '*' }] }));
  });
  afterAll(() => gw.close());

  /** Runs a runner as the launcher would, with only the convention's environment for its connection. */
  function run(path: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    const childEnv = { ...process.env };
    for (const name of Object.keys(childEnv)) if (name.startsWith('MEW_')) delete childEnv[name];
    const child = spawn(process.execPath, ['--import', 'tsx', runner(path), ...args], { env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
  }

  it.each([
    ['run-mew-agent.ts', './run-mew-agent.ts', [], { [RUNNER_ENV.agentSettings]: JSON.stringify({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }) }],
    ['run-bridge.ts', '../bridge/run-bridge.ts', ['--', process.execPath, '-e', ''], {}],
    ['the demo’s run-agent.ts', '../demo/run-agent.ts', ['scribe'], { [RUNNER_ENV.dataDir]: mkdtempSync(join(tmpdir(), 'mew-runner-data-')) }],
  ])('%s joins where MEW_GATEWAY says and ends with the table’s code when refused', { timeout: 30_000 }, async (_, path, args, extra) => {
    const connection = runnerConnectionEnv({ gateway: gw.wsUrl(), space: 'runners', token: 'not-a-token-of-this-space' });
    const { code, output } = await run(path, args, { ...connection, ...extra });
    expect(output).toMatch(/refused/);
    expect(code).toBe(RUNNER_EXIT_CODES.refused);
  });

  it('a runner given no gateway under the convention’s name ends with the usage code', { timeout: 30_000 }, async () => {
    const { code, output } = await run('../demo/run-agent.ts', ['scribe'], {
      MEW_GATEWAY_URL: gw.wsUrl(),
      [RUNNER_ENV.space]: 'runners',
      [RUNNER_ENV.token]: 'not-a-token-of-this-space',
      [RUNNER_ENV.dataDir]: tmpdir(),
    });
    expect(output).toContain(`missing environment: ${RUNNER_ENV.gateway}`);
    expect(code).toBe(RUNNER_EXIT_CODES.usage);
  });
});
