import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { ProposalRejectedError } from '../lib/sdk/sdk-errors';
import { connectToolAndAgent, E2E_TOKENS, signInUrl, type ToolAndAgent } from './fixtures/space';

// Progressive automation in the control room: rules learnt from a person's decisions, "approve for 1 hour", reject
// rules whose reason reaches the agent, and "Not now". Rules are decided in the server by the e2e space's supervisor.

const AUTH = { Authorization: `Bearer ${E2E_TOKENS.human}` };
const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

interface ListedRule {
  id: string;
  name: string;
  version: number;
  mode: string;
  expires_at?: string;
  hits: number;
  match: { tool?: unknown };
}

async function listRules(request: APIRequestContext): Promise<ListedRule[]> {
  return ((await (await request.get('/api/spaces/e2e/rules', { headers: AUTH })).json()) as { rules: ListedRule[] }).rules;
}

let run: ToolAndAgent;
let u: string;
/** A tool of this run's own, so the shapes learnt here are no other journey's. */
let tool: string;

test.beforeEach(async () => {
  run = await connectToolAndAgent('note');
  ({ u, tool } = run);
});

test.afterEach(async ({ request }) => {
  // Rules persist in the server's database: remove this run's, so no other journey is decided by them.
  for (const rule of await listRules(request)) {
    if (JSON.stringify(rule.match).includes(u)) await request.delete(`/api/spaces/e2e/rules/${rule.id}`, { headers: AUTH });
  }
  run.disconnect();
});

const propose = (path: string) =>
  run.agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { path, content: `text of ${path}` } } }, 20_000);
const cardOf = (page: Page, path: string) => queue(page).getByRole('article', { name: tool }).filter({ hasText: path });

test('approving three proposals of one shape suggests a rule; accepted, it approves the fourth with no click and the card names it', async ({
  page,
  request,
}) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  for (const n of [1, 2, 3]) {
    const path = `notes/${u}/day-${n}.md`;
    const done = propose(path);
    await cardOf(page, path).getByRole('button', { name: 'Approve', exact: true }).click();
    expect(await done).toMatchObject({ content: [{ text: `Wrote ${path}` }] });
  }

  const suggestion = page
    .getByRole('list', { name: 'Suggested rules' })
    .getByRole('listitem', { name: new RegExp(`Suggested rule: Approve agent → tools · ${tool} · path notes/${u}/\\*`) });
  await expect(suggestion).toBeVisible();
  await expect(suggestion).toContainText('You approved');
  await expect(suggestion).toContainText('3 times');
  await suggestion.getByRole('button', { name: 'Create and enforce' }).click();
  await expect(suggestion).toBeHidden();

  const fourth = `notes/${u}/day-4.md`;
  expect(await propose(fourth)).toMatchObject({ content: [{ text: `Wrote ${fourth}` }] });
  const card = cardOf(page, fourth);
  await expect(card.getByText('completed', { exact: true })).toBeVisible();
  const byRule = card.getByRole('button', { name: new RegExp(`rule Approve agent → tools · ${tool}.* \\(v1\\)`) });
  await expect(byRule).toBeVisible();

  // The link opens the rule, which counts the decision.
  await byRule.click();
  const rules = page.getByRole('dialog', { name: 'Approval rules' });
  const row = rules.getByRole('listitem', { name: new RegExp(`Rule Approve agent → tools · ${tool}`) });
  await expect(row).toHaveAttribute('aria-current', 'true');
  await expect(row).toContainText('1 decided');
  const [rule] = (await listRules(request)).filter((r) => r.match.tool === tool);
  expect(rule).toMatchObject({ mode: 'enforce', hits: 1 });
});

test('"Approve for 1 hour" approves by a new rule that expires in an hour; Undo deletes it and the next one asks again', async ({ page, request }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const first = `notes/${u}/hour-1.md`;
  const done = propose(first);
  await cardOf(page, first).getByRole('button', { name: 'Approve for…' }).click();
  // The dialog shows what the rule will cover before anything is saved.
  const dialog = page.getByRole('dialog', { name: `Approve ${tool} by a rule` });
  const scope = dialog.getByRole('region', { name: 'What the rule approves' });
  await expect(scope).toContainText(`anything under notes/${u}/`);
  await expect(scope).toContainText('any value'); // the content is not pinned
  await expect(dialog.getByRole('radio', { name: /^For 1 hour/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Approve for 1 hour' }).click();
  expect(await done).toMatchObject({ content: [{ text: `Wrote ${first}` }] });
  await expect(cardOf(page, first).getByRole('button', { name: /\(for 1 hour\) \(v1\)$/ })).toBeVisible();

  const [rule] = (await listRules(request)).filter((r) => r.match.tool === tool);
  const expiresIn = Date.parse(rule.expires_at!) - Date.now();
  expect(expiresIn).toBeGreaterThan(55 * 60_000);
  expect(expiresIn).toBeLessThanOrEqual(60 * 60_000);
  // The rules view says when it expires as every other time reads (relative), the exact time in a <time>.
  await cardOf(page, first)
    .getByRole('button', { name: /\(for 1 hour\) \(v1\)$/ })
    .click();
  const rulesView = page.getByRole('dialog', { name: 'Approval rules' });
  const expiry = rulesView.getByRole('listitem', { name: /\(for 1 hour\)/ }).locator('time', { hasText: /^in / });
  await expect(expiry).toHaveText(/^in (59m|1h)$/);
  await expect(expiry).toHaveAttribute('datetime', new Date(rule.expires_at!).toISOString());
  await expect(expiry).toHaveAttribute('title', /\d/);
  await page.keyboard.press('Escape');
  await expect(rulesView).toBeHidden();

  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(async () => (await listRules(request)).some((r) => r.id === rule.id)).toBe(false);
  const second = `notes/${u}/hour-2.md`;
  const waiting = propose(second).catch((e: Error) => e);
  const card = cardOf(page, second);
  await expect(card.getByRole('button', { name: 'Approve', exact: true })).toBeVisible();
  await card.getByRole('button', { name: 'Reject' }).click();
  await page
    .getByRole('dialog', { name: `Reject ${tool}` })
    .getByRole('button', { name: 'Reject' })
    .click();
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
});

test('a reject rule written in the rules view tells the agent its reason; disabled, it decides nothing', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.getByRole('button', { name: /^Rules/ }).click();
  const rules = page.getByRole('dialog', { name: 'Approval rules' });
  await rules.getByRole('button', { name: 'New rule' }).click();
  const form = rules.getByRole('form', { name: 'New rule' });
  await form.getByLabel('Name', { exact: true }).fill(`no drafts ${u}`);
  await form.getByLabel('Decision', { exact: true }).selectOption('reject');
  await form.getByLabel('proposer', { exact: true }).fill('agent');
  await form.getByLabel('tool', { exact: true }).fill(tool);
  await form.getByLabel('arguments (JSON object of patterns)').fill('{"path": "drafts/*"');
  const args = form.getByLabel('arguments (JSON object of patterns)');
  await expect(form.getByRole('list', { name: 'Problems' })).toContainText('arguments: write them as a JSON object');
  // The error is tied to its input.
  await expect(args).toHaveAttribute('aria-invalid', 'true');
  await expect(args).toHaveAccessibleDescription(/write them as a JSON object/);
  await form.getByLabel('arguments (JSON object of patterns)').fill('{"path": "drafts/*"}');
  await form.getByLabel('Reason the proposer is told').fill('drafts stay local');
  await form.getByLabel('Mode', { exact: true }).selectOption('enforce');
  await expect(form.getByRole('region', { name: 'Preview' })).toContainText('would have rejected 0');
  await form.getByRole('button', { name: 'Create rule' }).click();
  // The toast it raises shows above the modal (not behind its backdrop), topmost where it is, in a live region.
  const savedText = `Rule “no drafts ${u}” saved (v1)`;
  await expect(page.getByText(savedText).first()).toBeVisible();
  await expect
    .poll(() =>
      page.evaluate((text) => {
        // Some element showing the text is the topmost one at its own centre, and is in a live region.
        const shown = [...document.querySelectorAll('[data-sonner-toast] [data-title]')].filter((el) => el.textContent === text);
        return shown.some((el) => {
          const box = el.getBoundingClientRect();
          const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
          return !!hit && el.contains(hit) && el.closest('[aria-live]')?.getAttribute('aria-live') === 'polite';
        });
      }, savedText),
    )
    .toBe(true);
  const row = rules.getByRole('listitem', { name: `Rule no drafts ${u}` });
  await expect(row).toContainText(`agent · ${tool} · path drafts/*`);
  await page.keyboard.press('Escape');
  await expect(rules).toBeHidden();

  const rejected = await propose(`drafts/${u}.md`).catch((e: Error) => e);
  expect(rejected).toBeInstanceOf(ProposalRejectedError);
  expect(rejected).toMatchObject({ rejectedBy: 'rules', reason: 'drafts stay local' });
  const card = cardOf(page, `drafts/${u}.md`);
  await expect(card.getByText(new RegExp(`Rejected by rule no drafts ${u} \\(v1\\)`))).toBeVisible();

  // Disabled, the rule is kept (as a new version) and decides nothing: the next one waits for a person.
  await page.getByRole('button', { name: /^Rules/ }).click();
  await rules.getByRole('combobox', { name: `Mode of no drafts ${u}` }).selectOption('disabled');
  await expect(rules.getByRole('listitem', { name: `Rule no drafts ${u}` })).toContainText('v2');
  await rules.getByRole('button', { name: `Delete no drafts ${u}` }).click();
  await page
    .getByRole('dialog', { name: `Delete the rule “no drafts ${u}”?` })
    .getByRole('button', { name: 'Delete rule' })
    .click();
  await expect(rules.getByRole('listitem', { name: `Rule no drafts ${u}` })).toBeHidden();
});

test('"Not now" hides a proposal from this browser without telling the agent no, and it can be shown again', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const path = `notes/${u}/later.md`;
  const waiting = propose(path).catch((e: Error) => e);
  const card = cardOf(page, path);
  await card.getByRole('button', { name: 'Not now' }).click();
  await expect(card).toBeHidden();
  const show = queue(page).getByRole('button', { name: /put off \(Not now\): show/ });
  await expect(show).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(cardOf(page, path)).toBeHidden(); // still put off after a reload
  await queue(page)
    .getByRole('button', { name: /put off \(Not now\): show/ })
    .click();
  await expect(cardOf(page, path).getByText('pending', { exact: true })).toBeVisible();
  await cardOf(page, path).getByRole('button', { name: 'Reject' }).click();
  await page
    .getByRole('dialog', { name: `Reject ${tool}` })
    .getByRole('button', { name: 'Reject' })
    .click();
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
});
