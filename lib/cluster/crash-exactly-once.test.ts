import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../gateway/testing';
import {
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
  RedisProcess,
  SdkClients,
  ServerProcess,
  tempDir,
  ToolLoad,
  waitUntil,
  writeSpaceConfig,
  type Disruption,
} from '../gateway/testing/crash-harness';

/**
 * "Exactly once across a crash", cluster mode: a redis-server and two gateway nodes (`scripts/gateway.ts` with
 * MEW_REDIS_URL), the first started owning the space. Clients connect to both nodes, two thirds of them to the one
 * that does not own the space at first. Under chat load and tool calls, (1) the owner node is killed with SIGKILL
 * (twice: the second time the node that took over, with its clients) and started again on the same port and data
 * dir; (2) the redis-server is stopped (SIGSTOP) for 5 s, then continued. Nothing acknowledged may be lost, nothing
 * may reach an application twice, no tool may run twice for one request. The numbers are printed whatever the outcome.
 */

/** A liveness bound, not a timing: a takeover needs the lease's TTL (3 s) to run out first. */
const TAKEOVER_BOUND_MS = 15_000;
/** How long the redis-server is stopped. */
const REDIS_STOP_MS = 5_000;

const CHAT = crashChatLoad(['s0', 's1', 's2', 's3']);
const PARTICIPANTS = crashParticipants(CHAT);
/** Which node each participant connects to: every third to n0 (the first owner), the others to n1. */
const ORDER = Object.keys(PARTICIPANTS);
const nodeIndexOf = (participantId: string) => (ORDER.indexOf(participantId) % 3 === 2 ? 0 : 1);

interface Cluster {
  redis: RedisProcess;
  nodes: ServerProcess[];
  clients: SdkClients;
  chat: ChatLoad;
  tools: ToolLoad;
}

/** The space's owner as any live node sees it (`GET /cluster`), or undefined when none answers or none owns it. */
async function ownerName(nodes: ServerProcess[]): Promise<string | undefined> {
  for (const node of nodes.filter((n) => n.alive)) {
    try {
      const response = await fetch(node.httpUrl('/cluster'), { signal: AbortSignal.timeout(1_000) });
      if (!response.ok) continue;
      const owner = ((await response.json()) as { spaces: Record<string, string | null> }).spaces[SPACE];
      if (owner) return owner;
    } catch {
      // this node cannot tell now (Redis stopped, node restarting): ask the next
    }
  }
  return undefined;
}

async function setUp(): Promise<Cluster> {
  const redis = await RedisProcess.start();
  const configDir = tempDir();
  const configFile = writeSpaceConfig(configDir, SPACE, PARTICIPANTS);
  const nodes: ServerProcess[] = [];
  // One after the other, so that n0 owns the space.
  for (const name of ['n0', 'n1']) {
    nodes.push(
      await ServerProcess.start({
        name,
        port: await freePort(),
        dataDir: tempDir(`mew-crash-${name}-`),
        configFiles: [configFile],
        env: { MEW_REDIS_URL: redis.url, MEW_NODE_ID: name },
      }),
    );
  }
  if (!(await waitUntil(async () => (await ownerName(nodes)) === 'n0', TAKEOVER_BOUND_MS)))
    throw new Error(`n0 does not own ${SPACE} (owner: ${await ownerName(nodes)})`);
  const clients = new SdkClients(SPACE, (id) => nodes[nodeIndexOf(id)].wsUrl);
  const chat = new ChatLoad(clients, CHAT);
  await chat.connect();
  const tools = await ToolLoad.start(clients, configDir);
  return { redis, nodes, clients, chat, tools };
}

/** The load runs on a random while after the disruptions; then, once quiet: nothing acknowledged lost, nothing delivered or executed twice. */
async function expectExactlyOnce(title: string, run: CrashRun, cluster: Cluster, startedAt: number, disruptions: Disruption[]): Promise<void> {
  await loadFor(run.rng.between(1_000, 2_000));
  const { clients, chat, tools, nodes } = cluster;
  const problems = await quiesceAndTally(
    title,
    { seed: run.seed, clients, chat, tools, disruptions, loadMs: Date.now() - startedAt, servers: nodes },
    run.budget.bound(QUIET_BOUND_MS),
  );
  expect(problems).toEqual(NO_PROBLEMS);
}

describe('exactly once across a crash (cluster: two nodes and Redis)', () => {
  afterEach(cleanUpCrashTest);

  it('kill -9 of the owner node, twice, under chat and tool load: nothing acknowledged lost, nothing delivered or executed twice', async () => {
    const run = crashRun(0xc1a5_0001);
    const { rng, budget } = run;
    const cluster = await setUp();
    const away = [cluster.chat, cluster.tools];
    const startedAt = Date.now();
    cluster.chat.start();
    cluster.tools.start(150, 700);
    const disruptions: Disruption[] = [];
    const awayDuring = rng.between(0, 1);
    for (let k = 0; k < 2; k++) {
      await loadFor(rng.between(1_500, 3_500));
      const ownerId = await ownerName(cluster.nodes);
      const owner = cluster.nodes.find((n) => n.name === ownerId);
      if (!owner) throw new Error(`no node owns ${SPACE} before kill #${k + 1}`);
      const isAway = k === awayDuring;
      const { result, timing } = await disrupt({ rng, budget, clients: cluster.clients, startedAt }, isAway ? away : [], async (killedAt) => {
        await owner.kill9();
        const tookOver = await waitUntil(
          async () => {
            const now = await ownerName(cluster.nodes);
            return now !== undefined && now !== owner.name;
          },
          budget.bound(TAKEOVER_BOUND_MS),
          50,
        );
        const backMs = Date.now() - killedAt;
        await owner.launch(); // the same port and data dir: its clients reconnect to it
        return { tookOver, backMs };
      });
      disruptions.push({
        what: `kill -9 of owner ${owner.name} #${k + 1}`,
        ...timing,
        ...(result.tookOver && { backMs: result.backMs }),
        notes: `${result.tookOver ? `${await ownerName(cluster.nodes)} took over` : 'NO takeover'}${isAway ? '; away members disconnected before it, back after' : ''}`,
      });
    }
    await expectExactlyOnce('cluster, owner kill -9 ×2, chat + tools', run, cluster, startedAt, disruptions);
  }, 60_000);

  it('redis-server stopped (SIGSTOP) for 5 s under chat and tool load: nothing acknowledged lost, nothing delivered or executed twice', async () => {
    const run = crashRun(0xc1a5_0002);
    const { rng, budget } = run;
    const cluster = await setUp();
    const startedAt = Date.now();
    cluster.chat.start();
    cluster.tools.start(150, 700);
    await loadFor(rng.between(1_500, 3_500));
    const { result, timing } = await disrupt({ rng, budget, clients: cluster.clients, startedAt }, [cluster.chat, cluster.tools], async (frozenAt) => {
      cluster.redis.freeze();
      try {
        await loadFor(REDIS_STOP_MS); // the disruption itself: Redis answers nothing for 5 s while the load goes on
      } finally {
        cluster.redis.thaw();
      }
      const owned = await waitUntil(async () => (await ownerName(cluster.nodes)) !== undefined, budget.bound(TAKEOVER_BOUND_MS), 50);
      return { owned, backMs: Date.now() - frozenAt };
    });
    const disruptions: Disruption[] = [
      {
        what: `redis-server SIGSTOP ${REDIS_STOP_MS} ms, SIGCONT`,
        ...timing,
        ...(result.owned && { backMs: result.backMs }),
        notes: `owner after: ${await ownerName(cluster.nodes)}; away members disconnected before it, back after`,
      },
    ];
    await expectExactlyOnce('cluster, redis SIGSTOP 5 s, chat + tools', run, cluster, startedAt, disruptions);
  }, 60_000);
});
