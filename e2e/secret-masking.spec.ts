import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, E2E_TOKENS, signInUrl } from './fixtures/space';

// Secrets are never shown whole in the control room: a GitHub token in a proposal's arguments, a reasoning thought, a
// chat and a question shows masked (`ghp_…abcd`, saying "secret masked") in every view, the envelope log's search
// cannot find it by its hidden characters, and an approver still approves (or edits) the real call. A rule made from
// such a proposal is named with the token masked (its match keeps the real one, so it still approves the calls).

const participants: MEWParticipant[] = [];
/** Run before disconnecting: nothing of this journey stays open for the next (a question, a pending proposal). */
const cleanups: (() => void)[] = [];
const AUTH = { Authorization: `Bearer ${E2E_TOKENS.human}` };
/** Rules persist in the server's database: those whose match holds one of these are deleted after the journey. */
const ruleMarks: string[] = [];

interface ListedRule {
  id: string;
  name: string;
  version: number;
  match: { tool?: string; arguments?: Record<string, unknown> };
}

/** Joins as `tools` serving a moderate-risk `tool` that answers with `reply`; returns the arguments of every call it runs. */
async function serveTool(tool: string, reply: (args: Record<string, unknown>) => string): Promise<Record<string, unknown>[]> {
  const tools = await connectParticipant('tools', { autoDiscovery: false });
  participants.push(tools);
  const received: Record<string, unknown>[] = [];
  tools.tools.register({
    name: tool,
    security: { risk_level: 'moderate' },
    execute: (args) => {
      received.push(args);
      return reply(args);
    },
  });
  return received;
}

async function listRules(request: APIRequestContext): Promise<ListedRule[]> {
  return ((await (await request.get('/api/spaces/e2e/rules', { headers: AUTH })).json()) as { rules: ListedRule[] }).rules;
}

test.afterEach(async ({ request }) => {
  const marks = ruleMarks.splice(0);
  if (marks.length > 0) {
    for (const rule of await listRules(request)) {
      if (marks.some((mark) => JSON.stringify(rule.match).includes(mark))) await request.delete(`/api/spaces/e2e/rules/${rule.id}`, { headers: AUTH });
    }
  }
  for (const cleanup of cleanups.splice(0)) {
    try {
      cleanup();
    } catch {
      // already answered, decided or gone
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const participant of participants.splice(0)) participant.disconnect();
});

/** Neither the page's text nor its markup (attributes, titles) holds `secret`. */
async function expectNowhere(page: Page, secret: string) {
  await expect(page.getByText(secret)).toHaveCount(0);
  expect(await page.locator('body').textContent()).not.toContain(secret);
  expect(await page.content()).not.toContain(secret);
}

test('a token in a proposal, a thought, a chat and a question shows masked everywhere, and the log search cannot find it', async ({ page }) => {
  const u = Date.now().toString(36);
  const token = `ghp_${'K7m2'.repeat(9).slice(0, 36 - u.length)}${u}`;
  expect(token).toMatch(/^ghp_[A-Za-z0-9]{36}$/);
  const masked = `ghp_…${token.slice(-4)}`;
  const middle = token.slice(12, 24);
  const tool = `deploy_${u}`;

  const received = await serveTool(tool, (args) => `deployed ${String(args.repo)} with ${String(args.token)}`);
  const agent = await connectParticipant('agent', { autoDiscovery: false });
  participants.push(agent);

  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');

  // A reasoning thought, a proposal (the token as a field and inside text), a chat and a question, each with the token.
  const reasoning = agent.reasoning.start({ message: `Planning the deploy of ${u}` });
  reasoning.thought(`I will push with ${token} for ${u}`);
  const call = agent.mcpRequest(
    'tools',
    { method: 'tools/call', params: { name: tool, arguments: { repo: `acme/${u}`, token, note: `push with ${token}` } } },
    60_000,
    { onSent: (sent) => cleanups.push(() => agent.withdraw(sent.id)) },
  );
  void call.catch(() => undefined); // awaited below; a failure before then must not go unhandled at disconnect
  agent.chat.send(`the token for ${u} is ${token}`);
  const asked = agent.send({ kind: 'chat', to: ['human'], payload: { text: `may I use ${token} for ${u}?`, question: true } });
  cleanups.push(() => agent.chat.cancel(asked.id, 'no_longer_needed'));

  // The proposal card: masked where the arguments are, saying so, with the operator's Reveal.
  const card = page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: tool });
  await expect(card).toContainText(`acme/${u}`);
  await expect(card).toContainText(masked);
  await expect(card.getByText('secret masked', { exact: true })).toBeVisible();
  // A secret-named field masks whole but its last four characters; a recognised format keeps its prefix.
  const args = card.getByLabel(/^Arguments, secret masked$/);
  await expect(args).toContainText(`"token": "…${token.slice(-4)}"`);
  await expect(args).toContainText(`"note": "push with ${masked}"`);
  await expect(card.getByRole('button', { name: 'Reveal the secret in this proposal (audited)' })).toBeVisible();

  // "Approve for…": the rule would pin the token (a secret-named field) and the note; what it covers shows them masked.
  await card.getByRole('button', { name: 'Approve for…' }).click();
  const ruleDialog = page.getByRole('dialog', { name: `Approve ${tool} by a rule` });
  const scope = ruleDialog.getByRole('region', { name: 'What the rule approves' });
  await expect(scope).toContainText(`exactly …${token.slice(-4)}`);
  await expect(scope).toContainText(`exactly push with ${masked}`);
  await expect(scope.getByText('secret masked', { exact: true })).toBeVisible();
  await expectNowhere(page, token);
  await ruleDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(ruleDialog).toBeHidden();

  // The thought, once its thread is open.
  const reasoningPanel = page.getByRole('region', { name: 'Reasoning' });
  const toggle = reasoningPanel.getByRole('button', { name: new RegExp(`Planning the deploy of ${u}`) });
  await toggle.click();
  const thought = reasoningPanel
    .getByRole('list', { name: 'Thoughts' })
    .getByRole('listitem')
    .filter({ hasText: `for ${u}` });
  await expect(thought).toContainText(`I will push with ${masked} for ${u}`);
  await expect(thought.getByText('secret masked', { exact: true })).toBeVisible();

  // The chat, and the question in its card.
  const message = page
    .getByRole('list', { name: 'Messages' })
    .getByRole('listitem')
    .filter({ hasText: `the token for ${u}` });
  await expect(message).toContainText(`the token for ${u} is ${masked}`);
  const question = page.getByRole('article').filter({ hasText: `may I use ${masked} for ${u}?` });
  await expect(question.getByText('secret masked', { exact: true })).toBeVisible();

  await expectNowhere(page, token);

  // The log's search finds the rows by what they show, never by the token's hidden characters.
  const log = page.getByRole('region', { name: 'Envelope log' });
  const search = log.getByRole('searchbox', { name: 'Search' });
  const rows = log.getByRole('list', { name: 'Envelopes' }).getByRole('listitem');
  await search.fill(u);
  await expect(rows.filter({ hasText: `the token for ${u}` })).toHaveCount(1);
  await search.fill(middle);
  await expect(log.getByText('No envelope matches these filters.')).toBeVisible();
  await expect(rows).toHaveCount(0);
  await search.fill(`${u} ${token.slice(4, 16)}`);
  await expect(log.getByText('No envelope matches these filters.')).toBeVisible();
  await search.fill(masked);
  // The proposal, the thought, the chat and the question (and the start's row does not hold it).
  await expect(rows.filter({ hasText: tool })).toHaveCount(1);
  await expect(rows.filter({ hasText: `the token for ${u}` })).toHaveCount(1);
  await expect(rows.filter({ hasText: `I will push with ${masked}` })).toHaveCount(1);
  await rows
    .filter({ hasText: `the token for ${u}` })
    .getByRole('button', { name: new RegExp(`the token for ${u}`) })
    .click();
  await expect(rows.filter({ hasText: `the token for ${u}` }).locator('pre')).toContainText(masked);
  await expectNowhere(page, token);

  // Edit then approve: the dialog shows the token masked; left as it is, the tool receives the real one.
  await card.getByRole('button', { name: /Edit then approve/ }).click();
  const dialog = page.getByRole('dialog', { name: `Edit then approve: ${tool}` });
  const field = dialog.getByRole('textbox', { name: 'Arguments (JSON)' });
  await expect(field).toHaveValue(new RegExp(`"note": "push with ${masked}"`));
  await expect(dialog.getByText(/^Secret masked: a masked value/)).toBeVisible();
  await expectNowhere(page, token);
  const edited = (await field.inputValue()).replace(`acme/${u}`, `acme/${u}-edited`);
  await field.fill(edited);
  await expect(dialog.getByRole('figure')).toContainText(`acme/${u}-edited`);
  await dialog.getByRole('button', { name: 'Approve with edits' }).click();
  expect(await call).toMatchObject({ content: [{ text: `deployed acme/${u}-edited with ${token}` }] });
  expect(received).toEqual([{ repo: `acme/${u}-edited`, token, note: `push with ${token}` }]);

  // The result echoes the token: masked too.
  await expect(card).toContainText(`deployed acme/${u}-edited with ${masked}`);
  await expectNowhere(page, token);

  // The history's search, like the log's, finds the card by what it shows only.
  const history = page.getByRole('searchbox', { name: 'Search proposal history' });
  await history.fill(`${u} ${middle}`);
  await expect(card).toHaveCount(0);
  await history.fill(`${u} ${masked}`);
  await expect(card).toBeVisible();
  await history.fill('');

  // An operator's reveal of the thought (audited) shows it whole there, and nowhere else.
  await thought.getByRole('button', { name: 'Reveal the secret in this thought (audited)' }).click();
  await expect(thought).toContainText(`I will push with ${token} for ${u}`);
  await expect(message).not.toContainText(token);
  await expect(card).not.toContainText(token);
});

test('a rule made from a proposal holding a token shows it masked in its name, the undo toast, the rules dialog and its editor, and still approves the same call', async ({
  page,
  request,
}) => {
  const u = Date.now().toString(36);
  const token = `ghp_${'Q4w8'.repeat(9).slice(0, 36 - u.length)}${u}`;
  expect(token).toMatch(/^ghp_[A-Za-z0-9]{36}$/);
  // A secret-named argument masks whole but its last four characters.
  const tail = `…${token.slice(-4)}`;
  const tool = `release_${u}`;
  ruleMarks.push(tool);

  const received = await serveTool(tool, (args) => `released ${String(args.repo)}`);
  const agent = await connectParticipant('agent', { autoDiscovery: false });
  participants.push(agent);
  const propose = () => {
    const call = agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { repo: `acme/${u}`, token } } }, 30_000, {
      onSent: (sent) => cleanups.push(() => agent.withdraw(sent.id)),
    });
    void call.catch(() => undefined); // awaited below; a failure before then must not go unhandled at disconnect
    return call;
  };

  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');

  // "Always approve like this" (g): the rule pins the token, shown masked before it is saved.
  const first = propose();
  const card = page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: tool });
  await card.getByRole('heading', { name: tool }).click();
  await expect(card.getByRole('button', { name: 'Always approve like this' })).toBeEnabled();
  await page.keyboard.press('g');
  const ruleDialog = page.getByRole('dialog', { name: `Approve ${tool} by a rule` });
  await expect(ruleDialog.getByRole('region', { name: 'What the rule approves' })).toContainText(`exactly ${tail}`);
  await page.keyboard.press('Enter');
  await expect(ruleDialog).toBeHidden();
  expect(await first).toMatchObject({ content: [{ text: `released acme/${u}` }] });

  // Saved with the real token in its match, and the token masked in its name.
  const name = `agent → tools · ${tool} · repo acme/* · token ${tail} (always)`;
  const [rule] = (await listRules(request)).filter((r) => r.match.tool === tool);
  expect(rule).toMatchObject({ name, version: 1, match: { arguments: { repo: 'acme/*', token } } });

  // The undo toast, and the card's "by rule", say the masked name.
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Approved always' });
  await expect(toast).toContainText(`Rule “${name}” approves agent → tools · ${tool} · repo acme/* · token ${tail}.`);
  await expect(toast.getByRole('button', { name: 'Undo' })).toBeVisible();
  await expect(card.getByRole('button', { name: `rule ${name} (v1)` })).toBeVisible();
  await expectNowhere(page, token);

  // The rules dialog: the row's name and match masked, saying so, with the operator's audited Reveal.
  await page.getByRole('button', { name: /^Rules/ }).click();
  const rules = page.getByRole('dialog', { name: 'Approval rules' });
  const row = rules.getByRole('listitem', { name: `Rule ${name}` });
  await expect(row).toContainText(name);
  await expect(row).toContainText(`agent → tools · ${tool} · repo acme/* · token ${tail}`);
  await expect(row.getByText('secret masked', { exact: true })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Reveal the secret in this rule (audited)' })).toBeVisible();
  await expectNowhere(page, token);

  // Its editor shows the token masked, says so; saved without revealing, the rule keeps the real token.
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  const form = rules.getByRole('form', { name: `Edit rule ${name}` });
  const args = form.getByLabel('arguments (JSON object of patterns)');
  await expect(args).toHaveValue(new RegExp(`"token": "${tail}"`));
  await expect(args).toHaveAccessibleDescription(/secret masked.*A masked value \(like ghp_…abcd\) left as it is keeps the real one/);
  await expect(form.getByLabel('What saving does')).toContainText(`token ${tail}`);
  await expect(form.getByRole('list', { name: 'Problems' })).toHaveCount(0);
  await expectNowhere(page, token);
  await form.getByRole('button', { name: 'Save as v2' }).click();
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: `Rule “${name}” saved (v2)` })).toBeVisible();
  await expect.poll(async () => (await listRules(request)).find((r) => r.id === rule.id)?.version).toBe(2);
  const [saved] = (await listRules(request)).filter((r) => r.id === rule.id);
  expect(saved).toMatchObject({ name, match: { arguments: { repo: 'acme/*', token } } });
  await expectNowhere(page, token);
  await page.keyboard.press('Escape');
  await expect(rules).toBeHidden();

  // The rule still matches: the same call again is approved by it, with the real token.
  expect(await propose()).toMatchObject({ content: [{ text: `released acme/${u}` }] });
  expect(received).toEqual([
    { repo: `acme/${u}`, token },
    { repo: `acme/${u}`, token },
  ]);
  await expect(page.getByRole('region', { name: 'Proposals' }).getByRole('button', { name: `rule ${name} (v2)` })).toBeVisible();
  await expectNowhere(page, token);
});
