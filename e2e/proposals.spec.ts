import { expect, test, type Locator, type Page } from '@playwright/test';

import type { AnyEnvelope } from '../lib/protocol';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { E2E_PORT, E2E_TOKENS, signInUrl } from './fixtures/space';

// The approvers' proposal queue, end to end: the browser is the human; `tools` (a scripted tool provider) and
// `agent` (proposal-only) are real SDK participants connected from Node through the same gateway.

const WRITE_SCHEMA = {
  type: 'object' as const,
  required: ['path', 'content'],
  // The pattern keeps paths inside the tool's folder (no "..", no leading "/"): the dialog must enforce it like the tool.
  properties: { path: { type: 'string' as const, minLength: 1, pattern: '^(?!/)(?!.*\\.\\.)[\\w./-]+$' }, content: { type: 'string' as const } },
  additionalProperties: false,
};

interface ToolProvider {
  participant: MEWParticipant;
  files: Map<string, string>;
  calls: { name: string; args: Record<string, unknown>; from: string }[];
}

function connect(id: keyof typeof E2E_TOKENS, setup?: (p: MEWParticipant) => void): Promise<MEWParticipant> {
  const participant = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: 'e2e', token: E2E_TOKENS[id], autoDiscovery: false });
  setup?.(participant); // tools are registered before joining, so the dashboard's discovery sees them
  return participant.connect().then(() => participant);
}

async function startTools(): Promise<ToolProvider> {
  const files = new Map<string, string>();
  const calls: ToolProvider['calls'] = [];
  const record = (name: string) => (args: Record<string, unknown>, context: { from: string }) => void calls.push({ name, args, from: context.from });
  const participant = await connect('tools', (p) => {
    p.tools.register({
      name: 'write_file',
      description: 'Write a text file',
      inputSchema: WRITE_SCHEMA,
      security: { risk_level: 'moderate' },
      execute: (args, context) => {
        record('write_file')(args, context);
        files.set(String(args.path), String(args.content));
        return `Wrote ${String(args.content).length} characters to ${String(args.path)}`;
      },
    });
    p.tools.register({
      name: 'read_file',
      inputSchema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
      security: { risk_level: 'safe' },
      execute: (args, context) => {
        record('read_file')(args, context);
        const text = files.get(String(args.path));
        if (text === undefined) throw new Error(`ENOENT: ${String(args.path)} does not exist`);
        return text;
      },
    });
    p.tools.register({
      name: 'delete_file',
      inputSchema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
      security: { risk_level: 'dangerous', confirmation_required: true },
      execute: (args, context) => {
        record('delete_file')(args, context);
        files.delete(String(args.path));
        return `Deleted ${String(args.path)}`;
      },
    });
    p.tools.register({
      name: 'append_line',
      inputSchema: { type: 'object', required: ['line'], properties: { line: { type: 'string' } } },
      security: { risk_level: 'moderate' },
      execute: (args, context) => {
        record('append_line')(args, context);
        return `Appended: ${String(args.line)}`;
      },
    });
  });
  return { participant, files, calls };
}

/** The agent, plus what it sent and received (its own echoes included). */
async function startAgent() {
  const agent = await connect('agent');
  const seen: AnyEnvelope[] = [];
  agent.client.on('message', (envelope) => void seen.push(envelope));
  return { agent, seen };
}

/** The agent's `mcpRequest`, which becomes a proposal while it may not call the tool; failures stay observable. */
function agentCall(agent: MEWParticipant, name: string, args: Record<string, unknown>) {
  const call = agent.mcpRequest('tools', { method: 'tools/call', params: { name, arguments: args } }, 20_000);
  const settled = call.then(
    (result) => ({ ok: true as const, result }),
    (error: Error) => ({ ok: false as const, error }),
  );
  return settled;
}

/** A raw proposal (no promise waiting on it). */
function propose(agent: MEWParticipant, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return agent.send({ kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name, arguments: args }, ...extra } });
}

// Parallel runs on one machine each clear test-results/, so screenshots can be sent elsewhere.
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? 'test-results';

const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

/** The card of the proposal for `tool` whose content mentions `text`. */
const card = (page: Page, tool: string, text: string): Locator => queue(page).getByRole('article', { name: tool }).filter({ hasText: text });

async function openControlRoom(page: Page) {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(queue(page)).toBeVisible();
}

let tools: ToolProvider;
let agent: MEWParticipant;
let seen: AnyEnvelope[];
/** Unique per test run: the server's history keeps earlier runs' proposals, which must not match this run's. */
let u: string;

test.beforeAll(async () => {
  // Grants persist in the server's data directory: start every run from an agent that may only propose.
  const human = await connect('human');
  human.send({ kind: 'capability/revoke', to: ['agent'], payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/request' }], reason: 'e2e reset' } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  human.disconnect();
});

test.beforeEach(async () => {
  u = `${Date.now().toString(36)}${test.info().repeatEachIndex}`;
  tools = await startTools();
  ({ agent, seen } = await startAgent());
});

test.afterEach(async () => {
  // Leave no pending proposal behind for the next journey (history catch-up would bring it back).
  const decided = new Set(seen.filter((e) => ['mcp/request', 'mcp/reject', 'mcp/withdraw'].includes(e.kind)).flatMap((e) => e.correlation_id ?? []));
  for (const p of seen.filter((e) => e.kind === 'mcp/proposal' && e.from === 'agent' && !decided.has(e.id))) {
    agent.send({ kind: 'mcp/withdraw', correlation_id: [p.id], payload: { reason: 'no_longer_needed' } });
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  agent.disconnect();
  tools.participant.disconnect();
});

test('a proposal shows its risk and a diff against the current file, is approved by click and by keyboard, and its result shows', async ({ page }) => {
  tools.files.set(`notes-${u}.txt`, 'line one\nline two\nline three\n');
  await openControlRoom(page);

  const write = agentCall(agent, 'write_file', { path: `notes-${u}.txt`, content: 'line one\nline 2\nline three\n' });
  const writeCard = card(page, 'write_file', `notes-${u}.txt`);
  await expect(writeCard).toBeVisible();
  await expect(writeCard.getByText('risk: moderate')).toBeVisible();
  await expect(writeCard.getByText('agent', { exact: true })).toBeVisible();
  await expect(writeCard.getByText(`notes-${u}.txt: current (read from tools) → proposed`)).toBeVisible();
  await expect(writeCard.getByRole('cell', { name: 'removed' })).toBeVisible();
  await expect(writeCard.getByText('line two')).toBeVisible();
  await expect(writeCard.getByText('line 2')).toBeVisible();

  await writeCard.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(page.getByText('Approved — sent to tools')).toBeVisible();
  await expect(writeCard.getByText('completed', { exact: true })).toBeVisible();
  await expect(writeCard.getByLabel('Result')).toHaveText(`Wrote 27 characters to notes-${u}.txt`);
  expect(await write).toEqual({ ok: true, result: { content: [{ type: 'text', text: `Wrote 27 characters to notes-${u}.txt` }] } });
  expect(tools.files.get(`notes-${u}.txt`)).toBe('line one\nline 2\nline three\n');

  // Keyboard: a dangerous tool that asks for confirmation gets the extra step, with focus on Cancel.
  const del = agentCall(agent, 'delete_file', { path: `notes-${u}.txt` });
  const deleteCard = card(page, 'delete_file', `notes-${u}.txt`);
  await expect(deleteCard.getByText('risk: dangerous')).toBeVisible();
  await expect(deleteCard.getByText('confirmation required')).toBeVisible();
  // Keys act on the selected card: select this one (proposals other journeys left may be waiting too).
  await deleteCard.focus();
  await page.keyboard.press('a');
  const confirm = page.getByRole('dialog', { name: 'Run delete_file?' });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(confirm).toBeHidden();
  await expect(deleteCard.getByLabel('Result')).toHaveText(`Deleted notes-${u}.txt`);
  expect(await del).toMatchObject({ ok: true });
  expect(tools.files.has(`notes-${u}.txt`)).toBe(false);

  // And a plain one straight from the keyboard; an impatient second press must not run the tool twice.
  const second = agentCall(agent, 'write_file', { path: `todo-${u}.txt`, content: 'ship it' });
  const secondCard = card(page, 'write_file', `todo-${u}.txt`);
  await expect(secondCard.getByText('pending')).toBeVisible();
  await secondCard.focus();
  await page.keyboard.press('a');
  await page.keyboard.press('a');
  await expect(secondCard.getByLabel('Result')).toHaveText(`Wrote 7 characters to todo-${u}.txt`);
  expect(await second).toMatchObject({ ok: true });
  // The second press finds the decision sent ("Already sent…") or the card already gone from the queue (a fast tool):
  // either way the tool ran once.
  expect(tools.calls.filter((c) => c.name === 'write_file' && c.args.path === `todo-${u}.txt`)).toHaveLength(1);
});

test('edit then approve: invalid JSON and schema violations block the send; the edited arguments are what the tool receives', async ({ page }) => {
  await openControlRoom(page);
  const call = agentCall(agent, 'write_file', { path: `draft-${u}.txt`, content: 'hello' });
  const draft = card(page, 'write_file', `draft-${u}.txt`);
  await expect(draft).toBeVisible();

  await page.keyboard.press('e');
  const dialog = page.getByRole('dialog', { name: 'Edit then approve: write_file' });
  await expect(dialog).toBeVisible();
  const field = dialog.getByRole('textbox', { name: 'Arguments (JSON)' });
  await expect(field).toBeFocused();
  const send = dialog.getByRole('button', { name: 'Approve with edits' });

  await field.fill(`{"path": "draft-${u}.txt", `);
  await expect(dialog.getByText(/^Invalid JSON/)).toBeVisible();
  await expect(send).toBeDisabled();

  await field.fill(`{"path": "draft-${u}.txt"}`);
  await expect(dialog.getByText('arguments.content is required')).toBeVisible();
  await expect(send).toBeDisabled();

  await field.fill(`{"path": "../outside.txt", "content": "x"}`);
  await expect(dialog.getByText('arguments.path String does not match pattern')).toBeVisible();
  await expect(send).toBeDisabled();

  await field.fill(`{"path": "draft-${u}.txt", "content": 42}`);
  await expect(dialog.getByText('arguments.content expected string, got number')).toBeVisible();
  await field.press('Control+Enter'); // blocked too
  await expect(dialog).toBeVisible();
  expect(tools.calls.filter((c) => c.name === 'write_file')).toHaveLength(0);

  await field.fill(`{"path": "draft-${u}.txt", "content": "hello, edited"}`);
  await expect(dialog.getByText('Valid against the tool’s inputSchema.')).toBeVisible();
  await send.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Approved with edits — sent to tools')).toBeVisible();
  await expect(draft.getByText('Approved by human (you) with edited arguments.')).toBeVisible();
  await expect(draft.getByLabel('Result')).toHaveText(`Wrote 13 characters to draft-${u}.txt`);

  expect(await call).toMatchObject({ ok: true });
  expect(tools.calls.filter((c) => c.name === 'write_file')).toEqual([
    { name: 'write_file', args: { path: `draft-${u}.txt`, content: 'hello, edited' }, from: 'human' },
  ]);
  expect(tools.files.get(`draft-${u}.txt`)).toBe('hello, edited');
});

test('reject with reason "unsafe" and an explanation: the agent fails fast and receives the explanation as a chat', async ({ page }) => {
  await openControlRoom(page);
  const call = agentCall(agent, 'delete_file', { path: `/etc/${u}/passwd` });
  const proposalCard = card(page, 'delete_file', `/etc/${u}/passwd`);
  await expect(proposalCard).toBeVisible();

  await proposalCard.getByRole('button', { name: 'Reject' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reject delete_file' });
  await expect(dialog.getByRole('textbox', { name: /Explanation/ })).toBeFocused();
  await dialog.getByRole('radio', { name: 'Unsafe' }).check();
  await dialog.getByRole('textbox', { name: /Explanation/ }).fill('System files are off limits.');
  await dialog.getByRole('button', { name: 'Reject' }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByText('Rejected', { exact: true })).toBeVisible();
  const outcome = await call;
  expect(outcome.ok).toBe(false);
  expect(!outcome.ok && outcome.error.message).toBe('Proposal rejected by human: unsafe');

  await expect(proposalCard.getByText('rejected', { exact: true })).toBeVisible();
  await expect(proposalCard.getByText('Rejected by human (you):')).toContainText('Unsafe');
  await expect(proposalCard.getByText('“System files are off limits.”')).toBeVisible();

  const reject = seen.find((e) => e.kind === 'mcp/reject');
  await expect
    .poll(() => seen.find((e) => e.kind === 'chat' && e.correlation_id?.includes(reject!.id))?.payload)
    .toMatchObject({
      text: 'System files are off limits.',
    });
  expect(tools.calls).toHaveLength(0);
});

test('a tool granted outright (any arguments) is listed as such: the next call is a direct request with no new proposal, and the grant can be revoked', async ({
  page,
}) => {
  await openControlRoom(page);
  const first = agentCall(agent, 'append_line', { line: `first ${u}` });
  const firstCard = card(page, 'append_line', `first ${u}`);
  await expect(firstCard).toBeVisible();

  // The broad grant is made where operators manage capabilities (here through the SDK, as the capability editor does).
  const human = await connect('human');
  const grant = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'append_line' } } };
  await human.operate.grant({ recipient: 'agent', capabilities: [grant], reason: `e2e ${u}` }).accepted;
  human.disconnect();
  await expect(firstCard.getByText('agent holds a grant to call append_line with any arguments')).toBeVisible();
  await firstCard.getByRole('button', { name: 'Approve', exact: true }).click();
  expect(await first).toMatchObject({ ok: true });
  const allowed = queue(page).getByRole('region', { name: 'Granted tools (any arguments, no approval)' });
  await expect(allowed.getByText('append_line')).toBeVisible();

  const direct = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'append_line', arguments: { line: `second ${u}` } } };
  await expect.poll(() => agent.canSend('mcp/request', direct)).toBe(true);
  const second = await agentCall(agent, 'append_line', { line: `second ${u}` });
  expect(second).toEqual({ ok: true, result: { content: [{ type: 'text', text: `Appended: second ${u}` }] } });
  expect(seen.filter((e) => e.from === 'agent' && e.kind === 'mcp/proposal')).toHaveLength(1);
  expect(seen.filter((e) => e.from === 'agent' && e.kind === 'mcp/request')).toHaveLength(1);
  expect(tools.calls.map((c) => [c.args.line, c.from])).toEqual([
    [`first ${u}`, 'human'],
    [`second ${u}`, 'agent'],
  ]);
  await expect(queue(page).getByRole('article', { name: 'append_line' }).filter({ hasText: u })).toHaveCount(1);

  await allowed.getByRole('button', { name: "Revoke agent's permission to call append_line" }).click();
  await expect(allowed).toBeHidden();
  await expect.poll(() => agent.canSend('mcp/request', direct)).toBe(false);
});

test('two proposals both stay pending and visible, oldest first; j/k, x and batch approve decide both', async ({ page }) => {
  await openControlRoom(page);
  propose(agent, 'write_file', { path: `first-${u}.txt`, content: 'one' });
  await expect(card(page, 'write_file', `first-${u}.txt`)).toBeVisible();
  propose(agent, 'write_file', { path: `second-${u}.txt`, content: 'two' });
  await expect(card(page, 'write_file', `second-${u}.txt`)).toBeVisible();

  const pendingCards = queue(page)
    .getByRole('article')
    .filter({ has: page.getByText('pending', { exact: true }) });
  await expect(pendingCards).toHaveCount(2);
  await expect(pendingCards.nth(0)).toContainText(`first-${u}.txt`);
  await expect(pendingCards.nth(1)).toContainText(`second-${u}.txt`);
  await expect(queue(page).getByText('2 pending')).toBeVisible();

  await page.keyboard.press('j');
  await expect(card(page, 'write_file', `second-${u}.txt`)).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('x');
  await expect(queue(page).getByText('1 selected')).toBeVisible();
  await page.keyboard.press('k');
  await expect(card(page, 'write_file', `first-${u}.txt`)).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('x');
  await expect(queue(page).getByText('2 selected')).toBeVisible();

  await queue(page).getByRole('button', { name: 'Approve selected (2)' }).click();
  await expect(page.getByText('Approved 2 — sent to tools')).toBeVisible();
  await expect(card(page, 'write_file', `first-${u}.txt`).getByLabel('Result')).toHaveText(`Wrote 3 characters to first-${u}.txt`);
  await expect(card(page, 'write_file', `second-${u}.txt`).getByLabel('Result')).toHaveText(`Wrote 3 characters to second-${u}.txt`);
  expect([...tools.files.keys()].sort()).toEqual([`first-${u}.txt`, `second-${u}.txt`]);
});

test('a reload keeps the pending proposal (history catch-up), and a withdrawal shows as withdrawn', async ({ page }) => {
  await openControlRoom(page);
  const sent = propose(agent, 'write_file', { path: `reload-${u}.txt`, content: 'survives' });
  await expect(card(page, 'write_file', `reload-${u}.txt`).getByText('pending')).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const reloaded = card(page, 'write_file', `reload-${u}.txt`);
  await expect(reloaded.getByText('pending')).toBeVisible();
  await expect(reloaded.getByText('risk: moderate')).toBeVisible();
  await expect(reloaded.getByRole('button', { name: 'Approve', exact: true })).toBeEnabled();

  agent.send({ kind: 'mcp/withdraw', correlation_id: [sent.id], payload: { reason: 'no_longer_needed' } });
  await expect(reloaded.getByText('withdrawn', { exact: true })).toBeVisible();
  await expect(reloaded.getByText('Withdrawn by agent: it no longer needs it.')).toBeVisible();
  // Folded away in the history, the card still says what it was about.
  await expect(reloaded.locator('summary')).toContainText(`reload-${u}.txt`);
});

test("a proposer's timeout shows a countdown and then expired, never rejected; history is searchable; ? lists the shortcuts", async ({ page }) => {
  await openControlRoom(page);
  propose(agent, 'write_file', { path: `soon-${u}.txt`, content: 'late' }, { timeout_ms: 2500 });
  const soon = card(page, 'write_file', `soon-${u}.txt`);
  await expect(soon.getByText(/expires in 0:0\d/)).toBeVisible();
  await expect(soon.getByText('expired', { exact: true })).toBeVisible({ timeout: 6000 });
  await expect(soon.getByText(/It was not rejected/)).toBeVisible();
  await expect(soon.getByText('rejected', { exact: true })).toHaveCount(0);

  const search = queue(page).getByRole('searchbox', { name: 'Search proposal history' });
  await search.fill(`soon-${u}.txt`);
  await expect(queue(page).getByRole('article')).toHaveCount(1);
  await search.fill('no such proposal anywhere');
  await expect(queue(page).getByRole('article')).toHaveCount(0);
  await expect(queue(page).getByText('History · 0 matching “no such proposal anywhere”')).toBeVisible();

  // Typing in the search box never triggers shortcuts; outside it, ? opens the help.
  await search.press('?');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await search.blur();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help.getByText('Approve the selected proposal')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
});

test('at 1100 px the page does not scroll: each column does, and the queue scrolls 30 pending proposals under its heading', async ({ page }) => {
  await page.setViewportSize({ width: 1100, height: 800 });
  await openControlRoom(page);
  for (let n = 1; n <= 30; n++) propose(agent, 'write_file', { path: `many-${u}/${n}.txt`, content: `note ${n}` });
  await expect(queue(page).getByText(/^([3-9]\d|\d{3,}) pending$/)).toBeVisible();

  const extent = () =>
    page.evaluate(() => ({ height: document.scrollingElement!.scrollHeight, width: document.scrollingElement!.scrollWidth, innerHeight, innerWidth }));
  const before = await extent();
  expect(before.height).toBeLessThanOrEqual(before.innerHeight + 1);
  expect(before.width).toBeLessThanOrEqual(before.innerWidth);

  // The list's own scroll box (nearest scrolling ancestor of a card) lies inside the queue, not the column or the page.
  const list = await queue(page)
    .locator('[data-proposal-id]')
    .first()
    .evaluateHandle((card) => {
      let node: Element | null = card;
      for (; node && node !== document.body; node = node.parentElement) {
        const overflow = getComputedStyle(node).overflowY;
        if ((overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight) break;
      }
      return node!;
    });
  expect(await list.evaluate((el) => el.closest('section[aria-labelledby="proposal-queue-heading"]') !== null)).toBe(true);
  const box = (await list.asElement()!.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height, 800 - box.y) / 2);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 800);
  await expect.poll(() => list.evaluate((el) => el.scrollTop)).toBeGreaterThan(1000);

  const after = await extent();
  expect(after.height).toBeLessThanOrEqual(after.innerHeight + 1);
  expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0);
  await expect(queue(page).getByRole('heading', { name: 'Proposals' })).toBeInViewport();
  await expect(queue(page).getByRole('searchbox', { name: 'Search proposal history' })).toBeInViewport();
  await expect(page.getByRole('banner')).toBeInViewport();
  await list.dispose();
});

test('screenshots of the queue with real data at 1280 px and 390 px', async ({ page }) => {
  tools.files.set(`src/${u}/config.json`, '{\n  "retries": 3,\n  "timeout": 30\n}\n');
  await page.setViewportSize({ width: 1280, height: 1000 });
  await openControlRoom(page);
  const done = agentCall(agent, 'write_file', { path: `src/${u}/config.json`, content: '{\n  "retries": 5,\n  "timeout": 30\n}\n' });
  await expect(card(page, 'write_file', `src/${u}/config.json`).getByText('risk: moderate')).toBeVisible();
  await expect(card(page, 'write_file', `src/${u}/config.json`).getByText('"retries": 5,')).toBeVisible();
  propose(agent, 'delete_file', { path: `build-${u}/` }, { timeout_ms: 120_000 });
  await expect(card(page, 'delete_file', `build-${u}/`).getByText('risk: dangerous')).toBeVisible();

  await queue(page).screenshot({ path: `${SCREENSHOT_DIR}/proposals-1280.png` });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/control-room-1280.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await queue(page).screenshot({ path: `${SCREENSHOT_DIR}/proposals-390.png` });
  await page.keyboard.press('e');
  await page.getByRole('dialog').getByRole('textbox').fill('{"path": ""}');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/edit-dialog-390.png` });
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await page.keyboard.press('a');
  const approved = card(page, 'write_file', `src/${u}/config.json`);
  await expect(approved.getByLabel('Result')).toBeVisible();
  expect(await done).toMatchObject({ ok: true });
  await approved.getByText('Arguments').click();
  await page.setViewportSize({ width: 1280, height: 1000 });
  await approved.screenshot({ path: `${SCREENSHOT_DIR}/completed-1280.png` });
});
