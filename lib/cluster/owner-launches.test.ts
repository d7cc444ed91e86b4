import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenOf, type TestClient } from '../gateway/testing';
import { processRunning, scriptParticipant } from '../launcher/testing';
import { joiner, ownerVia, startNodeProcesses, startRedis, type NodeProcess, type TestRedis } from './testing';

/** A liveness bound for a takeover and the participant's start under the new owner, far above the lease's TTL (3 s). */
const TAKEOVER_LIMIT_MS = 15_000;
/** How soon a dead node's child must be gone: its watcher acts at once; SIGTERM ends this one. */
const ORPHAN_LIMIT_MS = 5_000;

/** A participant as agents are written: joins, says hello with its pid, and reconnects forever whatever happens to its server. */
const REJOINER = `
const WebSocket = require('ws');
function connect() {
  const ws = new WebSocket(process.env.MEW_GATEWAY + '?space=' + process.env.MEW_SPACE, { headers: { Authorization: 'Bearer ' + process.env.MEW_TOKEN } });
  ws.on('message', (data) => {
    if (JSON.parse(String(data)).kind === 'system/welcome') ws.send(JSON.stringify({ kind: 'chat', payload: { text: 'hello from ' + process.pid } }));
  });
  ws.on('error', () => {});
  ws.on('close', () => setTimeout(connect, 100));
}
connect();
`;

const config = {
  space: { id: 'crew' },
  participants: { human: { tokens: [tokenOf('human')], capabilities: [{ kind: '*' }] }, coder: scriptParticipant(REJOINER) },
};

let redis: TestRedis;
let nodes: NodeProcess[] = [];
const clients: TestClient[] = [];
const joinVia = joiner(clients);
const ownerOf = (node: NodeProcess) => ownerVia(node, 'crew');

beforeAll(async () => {
  redis = await startRedis();
  nodes = await startNodeProcesses(redis.url, ['n0', 'n1', 'n2'], [config]);
}, 90_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => n.stop()));
  await redis.stop();
});

interface ProcessReport {
  participant: string;
  state: string;
  pid?: number;
  log_file?: string;
}

async function processesVia(node: NodeProcess): Promise<ProcessReport[]> {
  const response = await fetch(node.httpUrl('/api/spaces/crew/processes'), { headers: { Authorization: `Bearer ${tokenOf('human')}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { processes: ProcessReport[] }).processes;
}

/** The pid in the coder's next hello that is not one of `earlier`. */
async function helloPid(human: TestClient, earlier: number[] = []): Promise<number> {
  const hello = await human.next(
    (f) => f.kind === 'chat' && f.from === 'coder' && !earlier.includes(Number(f.payload.text.split(' ').at(-1))),
    TAKEOVER_LIMIT_MS,
  );
  return Number(hello.payload.text.split(' ').at(-1));
}

const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);

describe('launched participants in cluster mode (real processes)', () => {
  it('runs them on the owner, lists them through any node, and moves them with the space on kill -9 and on a clean close', async () => {
    const [first, second] = nodes;
    expect(await ownerOf(second)).toBe('n0');
    const human = await joinVia(second, 'human', 'space=crew&after=0');
    const firstPid = await helloPid(human);
    expect(first.output()).toMatch(/crew\/coder: started/);
    // Through a node that does not own the space: forwarded to the owner, which runs the process.
    const [listed] = await processesVia(second);
    expect(listed).toMatchObject({ participant: 'coder', state: 'running', pid: firstPid });
    expect(listed.log_file).toBe(join(first.dataDir, 'crew', 'logs', 'coder.log'));

    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    // Its child ends with it rather than reconnecting to a dead node forever, or doubling the participant later.
    await expect.poll(() => processRunning(firstPid), { timeout: ORPHAN_LIMIT_MS, interval: 50 }).toBe(false);
    console.log(`kill -9 of the owner: its launched child was gone ${Date.now() - killedAt} ms later`);
    const secondPid = await helloPid(human, [firstPid]);
    console.log(`kill -9 of the owner: the participant was online again under the new owner ${Date.now() - killedAt} ms later`);
    const ownerId = await ownerOf(second);
    const owner = alive().find((n) => n.id === ownerId)!;
    const other = alive().find((n) => n !== owner)!;
    expect(await processesVia(other)).toMatchObject([{ participant: 'coder', state: 'running', pid: secondPid }]);

    // A clean close hands the space over with its participant: stopped here, started by the next owner.
    const watcher = await joinVia(other, 'human', 'space=crew');
    await owner.stop();
    expect(processRunning(secondPid)).toBe(false);
    const thirdPid = await helloPid(watcher, [firstPid, secondPid]);
    expect(await ownerOf(other)).toBe(other.id);
    expect(await processesVia(other)).toMatchObject([{ participant: 'coder', state: 'running', pid: thirdPid }]);
  }, 90_000);
});
