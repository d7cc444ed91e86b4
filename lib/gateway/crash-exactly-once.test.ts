import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './testing';
import {
  Budget,
  ChatLoad,
  CRASH_SPACE as SPACE,
  crashChatLoad,
  crashParticipants,
  crashSeed,
  killStartedProcesses,
  loadFor,
  NO_PROBLEMS,
  QUIET_BOUND_MS,
  quiesceAndTally,
  RECONNECT_BOUND_MS,
  removeDirs,
  SdkClients,
  SeededRandom,
  ServerProcess,
  tempDir,
  TEST_BUDGET_MS,
  ToolLoad,
  waitUntil,
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

let clients: SdkClients | undefined;

async function setUp(): Promise<Setup> {
  const dir = tempDir();
  const gateway = await ServerProcess.start({
    name: 'gateway',
    port: await freePort(),
    dataDir: dir,
    configFiles: [writeSpaceConfig(dir, SPACE, PARTICIPANTS)],
  });
  clients = new SdkClients(SPACE, () => gateway.wsUrl);
  const chat = new ChatLoad(clients, CHAT);
  await chat.connect();
  return { gateway, clients, chat, dir };
}

/**
 * `kills` times: let the load run a random while, kill -9 the gateway, start it again on the same port and data
 * dir, wait (bounded) until every client is ready again. During one of them (drawn at random) the away members
 * disconnect shortly before the kill and reconnect a while after the restart.
 */
async function killRepeatedly(
  rng: SeededRandom,
  kills: number,
  setup: Setup,
  startedAt: number,
  away: { goAway(): void; comeBack(): void }[],
  budget: Budget,
): Promise<Disruption[]> {
  const disruptions: Disruption[] = [];
  const awayDuring = rng.between(0, kills - 1);
  for (let k = 0; k < kills; k++) {
    await loadFor(rng.between(1_500, 3_500));
    const isAway = k === awayDuring;
    if (isAway) {
      for (const member of away) member.goAway();
      await loadFor(rng.between(100, 600));
    }
    const killedAt = Date.now();
    await setup.gateway.kill9();
    await setup.gateway.launch();
    const backMs = Date.now() - killedAt;
    if (isAway) {
      await loadFor(rng.between(200, 800));
      for (const member of away) member.comeBack();
    }
    const ready = await waitUntil(() => setup.clients.notReady().length === 0, budget.bound(RECONNECT_BOUND_MS));
    disruptions.push({
      what: `kill -9 #${k + 1}`,
      at: killedAt - startedAt,
      backMs,
      ...(ready && { clientsReadyMs: Date.now() - killedAt }),
      ...(isAway && { notes: 'away members disconnected before it, back after the restart' }),
    });
  }
  await loadFor(rng.between(1_000, 2_000)); // the load goes on after the last restart
  return disruptions;
}

describe('exactly once across a crash (one gateway process, kill -9)', () => {
  afterEach(async () => {
    await clients?.closeAll();
    clients = undefined;
    await killStartedProcesses();
    removeDirs();
  });

  it('chat at ~250/s through three kill -9s: every acknowledged envelope reaches every client once, the one away during a crash included', async () => {
    const budget = Budget.of(TEST_BUDGET_MS);
    const seed = crashSeed(0x5eed_0001);
    const rng = new SeededRandom(seed);
    const setup = await setUp();
    const startedAt = Date.now();
    setup.chat.start();
    const disruptions = await killRepeatedly(rng, 3, setup, startedAt, [setup.chat], budget);
    const problems = await quiesceAndTally(
      'single gateway, chat, kill -9 ×3',
      { seed, clients: setup.clients, chat: setup.chat, disruptions, loadMs: Date.now() - startedAt, servers: [setup.gateway] },
      budget.bound(QUIET_BOUND_MS),
    );
    expect(problems).toEqual(NO_PROBLEMS);
  }, 60_000);

  it('tool calls during the load (a participant’s tool, a bridged MCP server, a MEWAgent’s calls) run at most once per request through kill -9s', async () => {
    const budget = Budget.of(TEST_BUDGET_MS);
    const seed = crashSeed(0x5eed_0002);
    const rng = new SeededRandom(seed);
    const setup = await setUp();
    const tools = await ToolLoad.start(setup.clients, setup.dir);
    const startedAt = Date.now();
    setup.chat.start();
    tools.start(150, 700);
    const disruptions = await killRepeatedly(rng, 3, setup, startedAt, [setup.chat, tools], budget);
    const problems = await quiesceAndTally(
      'single gateway, tools + chat, kill -9 ×3',
      { seed, clients: setup.clients, chat: setup.chat, tools, disruptions, loadMs: Date.now() - startedAt, servers: [setup.gateway] },
      budget.bound(QUIET_BOUND_MS),
    );
    expect(problems).toEqual(NO_PROBLEMS);
  }, 60_000);
});
