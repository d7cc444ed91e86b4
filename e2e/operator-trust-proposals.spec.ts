import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { AnyEnvelope } from '../lib/protocol';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { ProposalRejectedError } from '../lib/sdk/sdk-errors';
import { connectToolAndAgent, demoToken, E2E_PORT, E2E_TOKENS, signInUrl, type ToolAndAgent } from './fixtures/space';

// Operator trust (#27), proposals and rules: a card counts down to the proposer's own deadline (and an escalation
// comes with time left to act); `r`, typing and Ctrl+Enter reject with the explanation kept in the audit; the
// prominent "always" is the narrowest rule of the proposal's shape, its scope shown before anything is saved.

const AUTH = { Authorization: `Bearer ${E2E_TOKENS.human}` };
// Parallel runs on one machine each clear test-results/, so screenshots can be sent elsewhere.
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? 'test-results';
const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

interface ListedRule {
  id: string;
  name: string;
  match: Record<string, unknown>;
  expires_at?: string;
  for_session_of?: string;
}

async function listRules(request: APIRequestContext): Promise<ListedRule[]> {
  return ((await (await request.get('/api/spaces/e2e/rules', { headers: AUTH })).json()) as { rules: ListedRule[] }).rules;
}

/** "1:58" → 118 000 ms. */
function countdownMs(text: string): number {
  const [, m, s] = /expires in (\d+):(\d\d)/.exec(text) ?? [];
  return (Number(m) * 60 + Number(s)) * 1000;
}

async function openControlRoom(page: Page, url = signInUrl()) {
  await page.goto(url);
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(queue(page)).toBeVisible();
}

let run: ToolAndAgent;
let u: string;
let tool: string;
/** What the agent received (its own echoes included). */
let seen: AnyEnvelope[];
const cardOf = (page: Page, text: string) => queue(page).getByRole('article', { name: tool }).filter({ hasText: text });
const propose = (path: string, timeoutMs = 20_000) =>
  run.agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { path, content: `text of ${path}` } } }, timeoutMs);

test.beforeEach(async () => {
  run = await connectToolAndAgent('trust');
  ({ u, tool } = run);
  seen = [];
  run.agent.client.on('message', (envelope) => void seen.push(envelope));
});

test.afterEach(async ({ request }) => {
  for (const rule of await listRules(request)) {
    if (JSON.stringify(rule.match).includes(u)) await request.delete(`/api/spaces/e2e/rules/${rule.id}`, { headers: AUTH });
  }
  // Leave nothing pending for the next journey.
  const decided = new Set(seen.filter((e) => ['mcp/request', 'mcp/reject', 'mcp/withdraw'].includes(e.kind)).flatMap((e) => e.correlation_id ?? []));
  for (const p of seen.filter((e) => e.kind === 'mcp/proposal' && e.from === 'agent' && !decided.has(e.id))) {
    run.agent.send({ kind: 'mcp/withdraw', correlation_id: [p.id], payload: { reason: 'no_longer_needed' } });
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  run.disconnect();
});

test('a card counts down to the proposer’s own 2-minute timeout, the same on two screens, never the dashboard’s 5:00', async ({ page, browser }) => {
  await openControlRoom(page);
  const path = `notes/${u}/countdown.md`;
  const sentAt = Date.now();
  const waiting = propose(path, 120_000).catch((e: Error) => e);
  const card = cardOf(page, path);
  const countdown = card.getByText(/^expires in \d+:\d\d$/);
  await expect(countdown).toBeVisible();
  await expect(card.getByText(/auto-expires/)).toHaveCount(0);
  // What the card shows is what is left of the agent's two minutes (give or take the clock's tick).
  const left = countdownMs((await countdown.textContent()) ?? '');
  const expected = 120_000 - (Date.now() - sentAt);
  expect(Math.abs(left - expected)).toBeLessThanOrEqual(2_500);
  expect(left).toBeGreaterThan(100_000);

  // Another screen, opened later, counts down to the same deadline.
  const other = await (await browser.newContext()).newPage();
  await openControlRoom(other);
  const there = cardOf(other, path).getByText(/^expires in \d+:\d\d$/);
  await expect(there).toBeVisible();
  const [here, away] = [countdownMs((await countdown.textContent()) ?? ''), countdownMs((await there.textContent()) ?? '')];
  expect(Math.abs(here - away)).toBeLessThanOrEqual(2_000);
  await other.context().close();

  // When the agent stops waiting, the card says so, and never calls it rejected.
  run.agent.withdraw(seen.find((e) => e.kind === 'mcp/proposal' && e.from === 'agent')!.id, 'timeout');
  await expect(card.getByText('withdrawn', { exact: true })).toBeVisible();
  await expect(card.getByText('Withdrawn by agent: its timeout ran out before anyone decided. It was not rejected.')).toBeVisible();
  expect(await waiting).toBeInstanceOf(Error);
});

test('in the demo, a dangerous proposal is marked urgent while its proposer still waits, with time left to decide', async ({ page }) => {
  test.setTimeout(60_000);
  // The demo escalates dangerous proposals after 120 s; a proposer that waits only 20 s is escalated at 10 s.
  const scribe = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: 'demo', token: demoToken('scribe'), autoDiscovery: false });
  await scribe.connect();
  try {
    await openControlRoom(page, `/spaces/demo#token=${demoToken('human')}`);
    const path = `notes/urgent-${u}.md`;
    const waiting = scribe
      .mcpRequest('files', { method: 'tools/call', params: { name: 'write_file', arguments: { path, content: 'urgent' } } }, 20_000)
      .catch((e: Error) => e);
    const card = queue(page).getByRole('article', { name: 'write_file' }).filter({ hasText: path });
    await expect(card.getByText(/^expires in 0:(1\d|20)$/)).toBeVisible();
    const urgent = card.getByRole('status').filter({ hasText: /^Urgent: undecided for \d+ s$/ });
    await expect(urgent).toBeVisible({ timeout: 15_000 });
    // Still pending, and the countdown leaves time to act on it.
    await expect(card.getByText('pending', { exact: true })).toBeVisible();
    expect(countdownMs((await card.getByText(/^expires in/).textContent()) ?? '')).toBeGreaterThanOrEqual(5_000);
    await expect(card.getByText('withdrawn', { exact: true })).toBeVisible({ timeout: 15_000 });
    expect(await waiting).toBeInstanceOf(Error);
  } finally {
    scribe.disconnect();
  }
});

test('r, typing at once, a number key for the reason and Ctrl+Enter reject; the agent reads the explanation and the audit keeps it', async ({
  page,
  request,
}) => {
  await openControlRoom(page);
  const path = `logs/${u}/app.log`;
  const waiting = propose(path).catch((e: Error) => e);
  const card = cardOf(page, path);
  await card.getByRole('heading', { name: tool }).click(); // select it
  await expect(card).toHaveAttribute('aria-current', 'true');

  await page.keyboard.press('r');
  const dialog = page.getByRole('dialog', { name: `Reject ${tool}` });
  const explanation = dialog.getByRole('textbox', { name: /Explanation/ });
  await expect(explanation).toBeFocused();
  await expect(dialog).not.toContainText('mcp/reject');
  await page.keyboard.type('Logs stay read-only.');
  await expect(explanation).toHaveValue('Logs stay read-only.');
  await page.keyboard.press('Alt+2'); // while typing, Alt+number picks the reason
  await expect(dialog.getByRole('radio', { name: 'Unsafe' })).toBeChecked();
  await expect(explanation).toHaveValue('Logs stay read-only.');
  await dialog.screenshot({ path: `${SCREENSHOT_DIR}/reject-dialog.png` });
  await page.keyboard.press('Control+Enter');
  await expect(dialog).toBeHidden();

  const rejected = await waiting;
  expect(rejected).toBeInstanceOf(ProposalRejectedError);
  expect(rejected).toMatchObject({ rejectedBy: 'human', reason: 'unsafe' });
  await expect(card.getByText('Rejected by human (you):')).toContainText('Unsafe');
  await expect(card.getByText('“Logs stay read-only.”')).toBeVisible();
  const reject = seen.find((e) => e.kind === 'mcp/reject')!;
  await expect
    .poll(() => seen.find((e) => e.kind === 'chat' && e.correlation_id?.includes(reject.id))?.payload)
    .toMatchObject({ text: 'Logs stay read-only.' });

  const proposal = seen.find((e) => e.kind === 'mcp/proposal' && e.from === 'agent')!;
  const audit = await request.get(`/api/spaces/e2e/audit?type=PROPOSAL_REJECTED&trace=${proposal.id}`, { headers: AUTH });
  const [event] = ((await audit.json()) as { events: { actor: string; details: Record<string, unknown> }[] }).events;
  expect(event).toMatchObject({ actor: 'human', details: { reason: 'unsafe', explanation: 'Logs stay read-only.' } });

  // Number keys outside the text box pick a reason too, and Ctrl+Enter sends from anywhere in the dialog.
  const second = `logs/${u}/second.log`;
  const next = propose(second).catch((e: Error) => e);
  await cardOf(page, second).getByRole('heading', { name: tool }).click();
  await page.keyboard.press('r');
  await dialog.getByRole('radio', { name: 'I disagree' }).focus();
  await page.keyboard.press('5');
  await expect(dialog.getByRole('radio', { name: 'Already handled' })).toBeChecked();
  await page.keyboard.press('Control+Enter');
  await expect(dialog).toBeHidden();
  expect(await next).toMatchObject({ reason: 'duplicate' });
});

test('g shows the narrowest rule of the proposal’s shape before saving it; confirmed, it approves calls in that folder only, and grants nothing', async ({
  page,
  request,
}) => {
  await openControlRoom(page);
  const first = `notes/${u}/one.md`;
  const done = propose(first);
  done.catch(() => undefined); // awaited below; a journey that fails earlier must not leave it unhandled
  const card = cardOf(page, first);
  await card.getByRole('heading', { name: tool }).click();
  await expect(card.getByRole('button', { name: 'Always approve like this' })).toBeEnabled();

  await page.keyboard.press('g');
  const dialog = page.getByRole('dialog', { name: `Approve ${tool} by a rule` });
  const scope = dialog.getByRole('region', { name: 'What the rule approves' });
  for (const [field, words] of [
    ['from', 'exactly agent'],
    ['to', 'exactly tools'],
    ['tool', `exactly ${tool}`],
    ['path', `anything under notes/${u}/`],
    ['content', 'any value'],
  ]) {
    await expect(scope.getByRole('definition').filter({ hasText: words })).toBeVisible();
    await expect(scope.getByRole('term').filter({ hasText: new RegExp(`^${field}$`) })).toBeVisible();
  }
  const always = dialog.getByRole('radio', { name: /^Always/ });
  await expect(always).toBeChecked();
  await expect(always).toBeFocused();
  await dialog.screenshot({ path: `${SCREENSHOT_DIR}/approve-by-rule-dialog.png` });
  // Shown first: nothing is saved yet.
  expect((await listRules(request)).filter((r) => JSON.stringify(r.match).includes(u))).toEqual([]);

  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  expect(await done).toMatchObject({ content: [{ text: `Wrote ${first}` }] });
  await expect(card.getByRole('button', { name: new RegExp(`rule agent → tools · ${tool} · path notes/${u}/\\* \\(always\\) \\(v1\\)`) })).toBeVisible();
  const [rule] = (await listRules(request)).filter((r) => JSON.stringify(r.match).includes(u));
  expect(rule.match).toEqual({ proposer: 'agent', target: 'tools', method: 'tools/call', tool, arguments: { path: `notes/${u}/*` } });
  expect(rule.expires_at).toBeUndefined();
  expect(rule.for_session_of).toBeUndefined();

  // The rule approves the next call in that folder, and only there; the agent holds no new capability.
  const next = `notes/${u}/two.md`;
  expect(await propose(next)).toMatchObject({ content: [{ text: `Wrote ${next}` }] });
  const outside = `drafts/${u}.md`;
  const waiting = propose(outside).catch((e: Error) => e);
  await expect(cardOf(page, outside).getByText('pending', { exact: true })).toBeVisible();
  expect(run.agent.canSend('mcp/request', { method: 'tools/call', params: { name: tool, arguments: { path: next } } })).toBe(false);
  await cardOf(page, outside).getByRole('button', { name: 'Reject' }).click();
  await page.keyboard.press('Control+Enter');
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
});

test('the rule editor accepts the hints it shows, ties errors to their field, and counts in words', async ({ page }) => {
  await openControlRoom(page);
  await page.getByRole('button', { name: /^Rules/ }).click();
  const rules = page.getByRole('dialog', { name: 'Approval rules' });
  await rules.getByRole('button', { name: 'New rule' }).click();
  const form = rules.getByRole('form', { name: 'New rule' });
  await form.getByLabel('Name', { exact: true }).fill(`hints ${u}`);
  const toolField = form.getByLabel('tool', { exact: true });
  // The placeholder is an input the editor takes as it stands.
  await toolField.fill((await toolField.getAttribute('placeholder')) ?? '');
  await form.getByLabel('proposer', { exact: true }).fill('agent');
  await expect(form.getByRole('list', { name: 'Problems' })).toHaveCount(0);
  await expect(form.getByLabel('What saving does')).toContainText('agent · ["write_file","move_file"]');

  await toolField.fill('[write_file, ]');
  await expect(toolField).toHaveAttribute('aria-invalid', 'true');
  await expect(toolField).toHaveAccessibleDescription('a list takes values separated by commas, e.g. [write_file, move_file]');
  await expect(form.getByRole('list', { name: 'Problems' })).toContainText('tool: a list takes values');
  await toolField.fill(tool);
  await expect(form.getByRole('region', { name: 'Preview' })).toContainText(/Of the last (proposal|\d+ proposals) in this space, it would have approved/);
  await page.keyboard.press('Escape');
  await expect(rules).toBeHidden();
});
