import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSpaceConfig, SpaceConfigError } from '../gateway/space-config';
import { LAUNCH_SECTION, launchedOf } from './launch-config';
import { joinAs, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';
import { expand, missingVariables } from './env-template';
import { ScriptedOpenAiServer } from '../sdk/agent/testing/scripted-openai-server';
import { ProcessLog } from './process-log';
import { SpaceLauncher } from './space-launcher';
import { participantsToLaunch } from './testing';

const NODE_MODULES = resolve('node_modules');
const FILESYSTEM_SERVER = join(NODE_MODULES, '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** A participant program: joins with what the server hands it, says hello (and, carelessly, prints its token). */
const JOINER = `
const WebSocket = require('ws');
console.log('starting with token ' + process.env.MEW_TOKEN);
const ws = new WebSocket(process.env.MEW_GATEWAY + '?space=' + process.env.MEW_SPACE, { headers: { Authorization: 'Bearer ' + process.env.MEW_TOKEN } });
ws.on('message', (data) => {
  const envelope = JSON.parse(String(data));
  if (envelope.kind === 'system/welcome') ws.send(JSON.stringify({ kind: 'chat', payload: { text: 'hello from ' + envelope.payload.you.id + ' as ' + process.env.ROLE } }));
});
ws.on('close', () => process.exit(1));
`;

function script(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mew-launch-'));
  writeFileSync(join(dir, 'participant.cjs'), source);
  return dir;
}

function config(dir: string, extra: Record<string, unknown> = {}) {
  return {
    space: { id: 'launch' },
    participants: {
      human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
      coder: {
        capabilities: [{ kind: 'chat' }],
        command: process.execPath,
        args: ['participant.cjs'],
        cwd: dir,
        env: { MEW_TOKEN: '${TOKEN}', MEW_GATEWAY: '${GATEWAY}', MEW_SPACE: '${SPACE}', ROLE: '${ROLE:-coder}', NODE_PATH: NODE_MODULES },
        restart: 'on-failure',
        // Fields of the reference implementation's templates, accepted as they are.
        type: 'local',
        ui_theme: 'dark',
        default_to: { chat: ['human'] },
        description: 'writes code',
        ...extra,
      },
    },
  };
}

describe('participants the server starts', () => {
  const open: { gw: TestGateway; launcher: SpaceLauncher }[] = [];
  afterEach(async () => {
    for (const { gw, launcher } of open.splice(0)) {
      await launcher.stopAll();
      await gw.close();
    }
  });

  async function serve(raw: ReturnType<typeof config>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-launch-data-'));
    const gw = await startGatewayWith({ configs: [raw], dataDir });
    const launcher = new SpaceLauncher({ gatewayUrl: gw.wsUrl(), port: gw.port, dataDir, backoff: { minDelayMs: 20, maxDelayMs: 50 } });
    open.push({ gw, launcher });
    for (const p of participantsToLaunch(gw)) launcher.add(p.space, p.participantId, p.spec, p.token);
    return { gw, launcher, dataDir };
  }

  it('starts a configured participant with its minted token; it joins, and its log never shows the token', async () => {
    const { gw, launcher, dataDir } = await serve(config(script(JOINER)));
    const human = await joinAs(gw, tokenOf('human'), 'space=launch');
    const hello = await human.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000);
    expect(hello.payload.text).toBe('hello from coder as coder');
    const status = launcher.status('launch', 'coder')!;
    expect(status).toMatchObject({ state: 'running', restarts: 0, logFile: join(dataDir, 'launch', 'logs', 'coder.log') });
    expect(status.tail.join('\n')).toContain('starting with token [redacted]');
    await launcher.stopAll();
    const log = readFileSync(status.logFile, 'utf8');
    expect(log).toContain('starting with token [redacted]');
    const token = gw.gateway.spaces.get('launch')!.services.records.mintedTokens().coder;
    expect(log).not.toContain(token);
    expect(launcher.status('launch', 'coder')!.state).toBe('stopped');
  });

  it('restarts a participant that crashes, with backoff, and leaves it down after too many restarts', async () => {
    const { gw, launcher } = await serve(config(script(JOINER)));
    const human = await joinAs(gw, tokenOf('human'), 'space=launch');
    await human.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000);
    process.kill(launcher.status('launch', 'coder')!.pid!, 'SIGKILL');
    await human.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000); // back, and joined again
    expect(launcher.status('launch', 'coder')).toMatchObject({ state: 'running', restarts: 1, lastExit: { signal: 'SIGKILL' } });

    const failing = await serve(config(script('process.exit(3)'), { restart: 'always' }));
    await expect.poll(() => failing.launcher.status('launch', 'coder')!.state, { timeout: 10_000 }).toBe('crashed');
    expect(failing.launcher.status('launch', 'coder')).toMatchObject({ restarts: 5, lastExit: { code: 3 } });
    expect(failing.launcher.status('launch', 'coder')!.tail.at(-1)).toMatch(/5 restarts within 60 s, leaving it down/);
  });

  it('leaves a participant down by its policy: never, or on-failure after a clean exit', async () => {
    const never = await serve(config(script('process.exit(2)'), { restart: 'never' }));
    await expect.poll(() => never.launcher.status('launch', 'coder')!.state, { timeout: 10_000 }).toBe('crashed');
    const clean = await serve(config(script('process.exit(0)')));
    await expect.poll(() => clean.launcher.status('launch', 'coder')!.state, { timeout: 10_000 }).toBe('exited');
    expect(clean.launcher.status('launch', 'coder')!.restarts).toBe(0);
  });

  it('does not start one that says auto_start: false, nor one that was kicked', async () => {
    const { gw, launcher } = await serve(config(script(JOINER), { auto_start: false }));
    expect(launcher.status('launch', 'coder')).toMatchObject({ state: 'stopped', restarts: 0 });
    expect(launcher.status('launch', 'coder')!.pid).toBeUndefined();
    // Known, though: an operator can start it.
    const watcher = await joinAs(gw, tokenOf('human'), 'space=launch');
    expect(launcher.start('launch', 'coder')).toBe(true);
    await watcher.next((f) => f.kind === 'chat' && f.from === 'coder', 10_000);

    const dataDir = mkdtempSync(join(tmpdir(), 'mew-launch-kick-'));
    const raw = config(script(JOINER), { auto_start: false });
    const first = await startGatewayWith({ configs: [raw], dataDir });
    const human = await joinAs(first, tokenOf('human'), 'space=launch');
    human.send({ kind: 'space/kick', payload: { participant_id: 'coder' } });
    await human.kind('space/kick');
    await first.close();
    const second = await startGatewayWith({ configs: [config(script(JOINER))], dataDir });
    expect(participantsToLaunch(second).map((p) => p.participantId)).toEqual([]);
    await second.close();
  });
});

describe('bridged MCP servers the server starts', () => {
  it('runs a `bridge:` entry through the MCP bridge: the server’s tools answer in the space', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-launch-bridge-'));
    const sandbox = script('');
    writeFileSync(join(sandbox, 'hello.txt'), 'bridged hello');
    const raw = {
      space: { id: 'launch' },
      participants: {
        human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
        files: {
          capabilities: [{ kind: 'mcp/response' }, { kind: 'participant/status' }],
          bridge: { command: process.execPath, args: [FILESYSTEM_SERVER, '.'], cwd: sandbox },
        },
      },
    };
    const gw = await startGatewayWith({ configs: [raw], dataDir });
    const launcher = new SpaceLauncher({ gatewayUrl: gw.wsUrl(), port: gw.port, dataDir });
    try {
      for (const p of participantsToLaunch(gw)) launcher.add(p.space, p.participantId, p.spec, p.token);
      const human = await joinAs(gw, tokenOf('human'), 'space=launch');
      await human.next((f) => f.kind === 'participant/status' && f.from === 'files' && f.payload.mcp_server?.state === 'ready', 20_000);
      human.send({
        id: 'read',
        kind: 'mcp/request',
        to: ['files'],
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: 'hello.txt' } } },
      });
      const answer = await human.next((f) => f.kind === 'mcp/response' && f.correlation_id?.includes('read'), 10_000);
      expect(answer.payload.result.content[0].text).toBe('bridged hello');
    } finally {
      await launcher.stopAll();
      await gw.close();
    }
  });

  it('refuses an entry with both a command and a bridge', () => {
    const raw = config('/tmp', { bridge: { command: 'mcp-server' } });
    expect(() => parseSpaceConfig(raw, 'space.yaml', { sections: [LAUNCH_SECTION] })).toThrow(
      /participants\.coder\.command: give one of command, bridge \(or mcp_server\) and agent/,
    );
  });
});

describe('agents the server starts', () => {
  const agentConfig = (agent: Record<string, unknown>) => ({
    space: { id: 'launch' },
    participants: {
      human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] },
      assistant: { capabilities: [{ kind: ['chat', 'chat/acknowledge', 'reasoning/*', 'participant/status', 'participant/compact-done'] }], agent },
    },
  });

  async function serve(agent: Record<string, unknown>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-launch-agent-'));
    const gw = await startGatewayWith({ configs: [agentConfig(agent)], dataDir });
    const launcher = new SpaceLauncher({ gatewayUrl: gw.wsUrl(), port: gw.port, dataDir });
    for (const p of participantsToLaunch(gw)) launcher.add(p.space, p.participantId, p.spec, p.token);
    return { gw, launcher };
  }

  it('runs an `agent:` entry as a MEWAgent against its endpoint: it answers a chat addressed to it', async () => {
    const model = await ScriptedOpenAiServer.start();
    model.reply({ content: 'Hello from the model.' });
    const { gw, launcher } = await serve({ model: 'scripted-model', base_url: model.baseUrl, stream: false });
    try {
      const human = await joinAs(gw, tokenOf('human'), 'space=launch');
      await human.next((f) => f.kind === 'system/presence' && f.payload.participant?.id === 'assistant' && f.payload.event === 'join', 20_000);
      human.send({ kind: 'chat', to: ['assistant'], payload: { text: 'say hello' } });
      const answer = await human.next((f) => f.kind === 'chat' && f.from === 'assistant', 20_000);
      expect(answer.payload.text).toBe('Hello from the model.');
      expect((await model.request(0)).body.model).toBe('scripted-model');
    } finally {
      await launcher.stopAll();
      await gw.close();
      await model.close();
    }
  });

  it('does not start an agent with neither endpoint nor key, and says why in its log; started by hand it fails for good', async () => {
    const { gw, launcher } = await serve({ model: 'gpt-4o-mini', api_key_env: 'MEW_TEST_SURELY_UNSET_KEY' });
    try {
      expect(launcher.status('launch', 'assistant')).toMatchObject({
        state: 'stopped',
        tail: ['not configured: set MEW_TEST_SURELY_UNSET_KEY or agent.base_url: not started'],
      });
      launcher.start('launch', 'assistant');
      await expect.poll(() => launcher.status('launch', 'assistant')!.state, { timeout: 20_000 }).toBe('crashed');
      expect(launcher.status('launch', 'assistant')).toMatchObject({ restarts: 0, lastExit: { code: 78 } });
      expect(launcher.status('launch', 'assistant')!.tail.join('\n')).toContain('agent: not configured: set MEW_TEST_SURELY_UNSET_KEY or agent.base_url');
    } finally {
      await launcher.stopAll();
      await gw.close();
    }
  });
});

describe('launch config', () => {
  it('loads the reference implementation’s layouts: a launched agent with its env, and an MCP bridge as type mcp-bridge', () => {
    // Shaped like the reference's note-taker template (after its CLI fills the {{…}} placeholders) and its MCP bridge scenario.
    const reference = {
      space: { id: 'notes', name: 'notes', description: 'Note-taking workspace' },
      participants: {
        human: { capabilities: [{ kind: '*' }] },
        assistant: {
          command: 'node',
          args: ['./.mew/agents/assistant.cjs'],
          auto_start: true,
          env: { NODE_PATH: './.mew/node_modules', MEW_SPACE: 'notes', MEW_TOKEN: '${TOKEN}', OPENAI_API_KEY: '${OPENAI_API_KEY}', AGENT_MODEL: 'gpt-4o' },
          capabilities: [{ kind: 'mcp/request' }, { kind: 'chat' }, { kind: 'chat/acknowledge' }, { kind: 'chat/cancel' }],
        },
        filesystem: {
          type: 'mcp-bridge',
          mcp_server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', './test-files'] },
          auto_start: true,
          tokens: ['filesystem-token-0123456789'],
          capabilities: [{ kind: 'mcp/response' }, { kind: 'chat' }],
          bridge_config: { init_timeout: 30000, reconnect: true, max_reconnects: 3 },
        },
        client: {
          tokens: ['client-token-0123456789'],
          capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/*' } }, { kind: 'mcp/response' }, { kind: 'system/*' }],
          output_log: './logs/client-output.log',
          auto_connect: true,
        },
      },
    };
    const parsed = parseSpaceConfig(reference, 'space.yaml', { env: { OPENAI_API_KEY: 'sk-test' }, baseDir: '/srv/notes', sections: [LAUNCH_SECTION] });
    const launch = (id: string) => launchedOf(parsed.participants.find((p) => p.id === id)!).launch;
    expect(launch('assistant')).toMatchObject({ command: 'node', cwd: '/srv/notes', autoStart: true, env: { OPENAI_API_KEY: '${OPENAI_API_KEY}' } });
    expect(launch('filesystem')!.args.slice(-9)).toEqual([
      '--init-timeout-ms',
      '30000',
      '--max-restarts',
      '3',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-filesystem',
      './test-files',
    ]);
    expect(launch('client')).toBeUndefined();
    // The agent's ${OPENAI_API_KEY} must be fillable: without it the config says so.
    expect(() => parseSpaceConfig(reference, 'space.yaml', { env: {}, sections: [LAUNCH_SECTION] })).toThrow(
      /participants\.assistant\.env\.OPENAI_API_KEY: environment variable OPENAI_API_KEY is not set/,
    );
  });

  it('refuses a ${NAME} the server environment cannot fill, naming the participant, the field and the variable', () => {
    const raw = config('/tmp', { env: { KEY: '${MEW_TEST_SURELY_UNSET}' } });
    expect(() => parseSpaceConfig(raw, 'space.yaml', { env: {}, sections: [LAUNCH_SECTION] })).toThrow(SpaceConfigError);
    expect(() => parseSpaceConfig(raw, 'space.yaml', { env: {}, sections: [LAUNCH_SECTION] })).toThrow(
      /space\.yaml: participants\.coder\.env\.KEY: environment variable MEW_TEST_SURELY_UNSET is not set/,
    );
    expect(
      launchedOf(
        parseSpaceConfig(raw, 'space.yaml', { env: { MEW_TEST_SURELY_UNSET: 'x' }, sections: [LAUNCH_SECTION] }).participants.find((p) => p.id === 'coder')!,
      ).launch,
    ).toMatchObject({
      command: process.execPath,
      autoStart: true,
      restart: 'on-failure',
    });
  });

  it('fills server variables, the environment and defaults, and keeps other text as written', () => {
    expect(missingVariables('${TOKEN} ${HOME_X} ${OPT:-none}', {})).toEqual(['HOME_X']);
    expect(expand('${GATEWAY}?space=${SPACE} ${OPT:-none} ${SET} $plain', { GATEWAY: 'ws://h/ws', SPACE: 'demo' }, { SET: 'yes' })).toBe(
      'ws://h/ws?space=demo none yes $plain',
    );
  });

  it('rotates a log that outgrows its cap and redacts every secret it was given', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mew-log-')), 'p.log');
    const log = new ProcessLog(file, ['secret-token-123'], 200);
    for (let i = 0; i < 10; i++) {
      log.write(`line ${i} with secret-token-123`);
      log.flush();
    }
    expect(existsSync(`${file}.1`)).toBe(true);
    const text = readFileSync(file, 'utf8') + readFileSync(`${file}.1`, 'utf8');
    expect(text).not.toContain('secret-token-123');
    expect(text).toContain('line 9 with [redacted]');
    expect(log.tail.toArray()).toHaveLength(10);
  });
});
