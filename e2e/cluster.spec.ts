import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { parse as parseYaml } from 'yaml';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { startNodeProcess, startRedis, type NodeProcess, type TestRedis } from '../lib/cluster/testing';
import { scriptParticipant } from '../lib/launcher/testing';
import { E2E_TOKENS } from './fixtures/space';

/**
 * Supervising through a cluster: the control room on one node (the whole app), the space owned by another, the
 * agent and its tool on a third; approving works across them, and goes on working after the owner is killed. The
 * space's launched participant runs on its owner and moves with it.
 */
const e2eSpace = parseYaml(readFileSync('e2e/e2e-space.yaml', 'utf8'));
/** A launched participant as agents are written: joins, and reconnects whenever its server goes. */
const WORKER = `
const WebSocket = require('ws');
function connect() {
  const ws = new WebSocket(process.env.MEW_GATEWAY + '?space=' + process.env.MEW_SPACE, { headers: { Authorization: 'Bearer ' + process.env.MEW_TOKEN } });
  ws.on('error', () => {});
  ws.on('close', () => setTimeout(connect, 100));
}
connect();
`;
e2eSpace.participants.worker = scriptParticipant(WORKER);
/** How long a step through several nodes may take on a loaded CI machine (a liveness bound, not a measurement). */
const CROSS_NODE_MS = 15_000;

let redis: TestRedis;
let owner: NodeProcess;
let app: NodeProcess;
let third: NodeProcess;
const participants: MEWParticipant[] = [];

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  redis = await startRedis();
  owner = await startNodeProcess(redis.url, 'owner', [e2eSpace]); // first, so it owns the space
  app = await startNodeProcess(redis.url, 'app', [e2eSpace], { app: true });
  third = await startNodeProcess(redis.url, 'third', [e2eSpace]);
});

/** What the nodes printed, when a run fails: a failure across three processes is otherwise silent. */
// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures a hook asks for from this pattern
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const node of [owner, app, third]) if (node) console.log(`--- node ${node.id} ---\n${node.output().slice(-4_000)}`);
});

test.afterAll(async () => {
  for (const p of participants) p.disconnect();
  await Promise.all([owner, app, third].map((n) => n?.stop()));
  await redis?.stop();
});

async function connect(id: 'tools' | 'agent'): Promise<MEWParticipant> {
  const participant = new MEWParticipant({ gateway: third.wsUrl(), space: 'e2e', token: E2E_TOKENS[id], autoDiscovery: false });
  await participant.connect();
  participants.push(participant);
  return participant;
}

async function ownerName(): Promise<string | null> {
  const status = (await (await fetch(app.httpUrl('/cluster'))).json()) as { spaces: Record<string, string | null> };
  return status.spaces.e2e;
}

/** Approves the card and waits for the tool's answer: a round trip through three processes and Redis. */
async function approve(page: Page, tool: string, path: string): Promise<void> {
  const card = page.getByRole('article', { name: tool }).filter({ hasText: path });
  await expect(card).toBeVisible({ timeout: CROSS_NODE_MS });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card.getByText('completed', { exact: true })).toBeVisible({ timeout: CROSS_NODE_MS });
}

test('a supervisor approves across nodes, and keeps approving after the node that owned the space is killed', async ({ page }) => {
  expect(await ownerName()).toBe('owner');
  const u = Date.now().toString(36);
  const tool = `cluster_write_${u}`;
  const tools = await connect('tools');
  tools.tools.register({ name: tool, security: { risk_level: 'moderate' }, execute: ({ path }) => `Wrote ${String(path)}` });
  const agent = await connect('agent');
  const propose = (path: string) => agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { path } } }, 60_000);

  await page.goto(app.httpUrl(`/spaces/e2e#token=${E2E_TOKENS.human}`));
  // Proposed once the control room is in the space, so the card arrives live, not with a catch-up.
  await expect(page.getByRole('article', { name: 'agent' }).first()).toBeVisible({ timeout: CROSS_NODE_MS });
  const first = propose(`before-${u}.txt`);
  await approve(page, tool, `before-${u}.txt`);
  expect(JSON.stringify(await first)).toContain(`Wrote before-${u}.txt`);
  // The owner runs the launched worker; its card, on the app node, shows the process the owner reports.
  const worker = page.getByRole('article', { name: /^worker\b/ });
  const workerProcess = worker.getByRole('group', { name: 'Process of worker' });
  await expect(workerProcess.getByText('running', { exact: true })).toBeVisible({ timeout: CROSS_NODE_MS });
  const pidOf = async () => /pid (\d+)/.exec((await workerProcess.textContent()) ?? '')?.[1];
  const ownersWorker = await pidOf();
  expect(ownersWorker).toBeDefined();

  owner.child.kill('SIGKILL');
  await expect.poll(ownerName, { timeout: 15_000, intervals: [200] }).toMatch(/^(app|third)$/);
  // The page's socket is on a node that lived: no reconnect, only a pause.
  const second = propose(`after-${u}.txt`);
  await approve(page, tool, `after-${u}.txt`);
  expect(JSON.stringify(await second)).toContain(`Wrote after-${u}.txt`);
  // The worker died with its node and runs again under the new owner: another process, online again.
  await expect.poll(pidOf, { timeout: CROSS_NODE_MS }).not.toBe(ownersWorker);
  await expect(workerProcess.getByText('running', { exact: true })).toBeVisible();
  await expect(worker.getByText('Online')).toBeVisible({ timeout: CROSS_NODE_MS });
});
