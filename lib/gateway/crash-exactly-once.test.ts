import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './testing';
import {
  type AwayMember,
  ChatLoad,
  CRASH_SPACE as SPACE,
  cleanUpCrashTest,
  crashChatLoad,
  crashParticipants,
  crashRun,
  type CrashRun,
  disrupt,
  loadFor,
  NO_PROBLEMS,
  QUIET_BOUND_MS,
  quiesceAndTally,
  SdkClients,
  ServerProcess,
  tempDir,
  ToolLoad,
  writeSpaceConfig,
  type Disruption,
} from './testing/crash-harness';

/**
 * "Exactly once across a crash", single gateway process (`node --import tsx scripts/gateway.ts`, SQLite in
 * MEW_DATA_DIR): the process is killed with SIGKILL at seeded random moments under load and started again on the
 * same port and data dir. Nothing a sender saw acknowledged may be lost, for connected clients and for one that was
 * away during the crash; nothing may reach an application twice; no tool may run twice for one request.
 * The numbers are printed (console.log) whatever the outcome.
 */

const CHAT = crashChatLoad(['s0', 's1', 's2', 's3', 's4']);
const PARTICIPANTS = crashParticipants(CHAT);

interface Setup {
  gateway: ServerProcess;
  clients: SdkClients;
  chat: ChatLoad;
  dir: string;
}

async function setUp(): Promise<Setup> {
  const dir = tempDir();
  const gateway = await ServerProcess.start({
    name: 'gateway',
    port: await freePort(),
    dataDir: dir,
    configFiles: [writeSpaceConfig(dir, SPACE, PARTICIPANTS)],
  });
  const clients = new SdkClients(SPACE, () => gateway.wsUrl);
  const chat = new ChatLoad(clients, CHAT);
  await chat.connect();
  return { gateway, clients, chat, dir };
}

/**
 * `kills` times: let the load run a random while, kill -9 the gateway, start it again on the same port and data
 * dir, wait (bounded) until every client is ready again. During one of them (drawn at random) the away members
 * disconnect shortly before the kill and reconnect a while after the restart.
 */
async function killRepeatedly(run: CrashRun, kills: number, setup: Setup, startedAt: number, away: AwayMember[]): Promise<Disruption[]> {
  const { rng } = run;
  const disruptions: Disruption[] = [];
  const awayDuring = rng.between(0, kills - 1);
  for (let k = 0; k < kills; k++) {
    await loadFor(rng.between(1_500, 3_500));
    const isAway = k === awayDuring;
    const { result: backMs, timing } = await disrupt({ ...run, clients: setup.clients, startedAt }, isAway ? away : [], async (killedAt) => {
      await setup.gateway.kill9();
      await setup.gateway.launch();
      return Date.now() - killedAt;
    });
    disruptions.push({
      what: `kill -9 #${k + 1}`,
      ...timing,
      backMs,
      ...(isAway && { notes: 'away members disconnected before it, back after the restart' }),
    });
  }
  await loadFor(rng.between(1_000, 2_000)); // the load goes on after the last restart
  return disruptions;
}

describe('exactly once across a crash (one gateway process, kill -9)', () => {
  afterEach(cleanUpCrashTest);

  it('chat at ~250/s through three kill -9s: every acknowledged envelope reaches every client once, the one away during a crash included', async () => {
    const run = crashRun(0x5eed_0001);
    const setup = await setUp();
    const startedAt = Date.now();
    setup.chat.start();
    const disruptions = await killRepeatedly(run, 3, setup, startedAt, [setup.chat]);
    const problems = await quiesceAndTally(
      'single gateway, chat, kill -9 ×3',
      { seed: run.seed, clients: setup.clients, chat: setup.chat, disruptions, loadMs: Date.now() - startedAt, servers: [setup.gateway] },
      run.budget.bound(QUIET_BOUND_MS),
    );
    expect(problems).toEqual(NO_PROBLEMS);
  }, 60_000);

  it('tool calls during the load (a participant’s tool, a bridged MCP server, a MEWAgent’s calls) run at most once per request through kill -9s', async () => {
    const run = crashRun(0x5eed_0002);
    const setup = await setUp();
    const tools = await ToolLoad.start(setup.clients, setup.dir);
    const startedAt = Date.now();
    setup.chat.start();
    tools.start(150, 700);
    const disruptions = await killRepeatedly(run, 3, setup, startedAt, [setup.chat, tools]);
    const problems = await quiesceAndTally(
      'single gateway, tools + chat, kill -9 ×3',
      { seed: run.seed, clients: setup.clients, chat: setup.chat, tools, disruptions, loadMs: Date.now() - startedAt, servers: [setup.gateway] },
      run.budget.bound(QUIET_BOUND_MS),
    );
    expect(problems).toEqual(NO_PROBLEMS);
  }, 60_000);
});
