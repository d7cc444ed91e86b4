import { expect, test, type Page } from '@playwright/test';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { E2E_PORT, E2E_TOKENS, signInUrl } from './fixtures/space';

// The operator's audit view, end to end: decisions made in the browser show up in it with who made them; a decided
// proposal's history opens its trail; export downloads the filtered rows; a non-operator has no way in.

function connect(id: keyof typeof E2E_TOKENS, setup?: (p: MEWParticipant) => void): Promise<MEWParticipant> {
  const participant = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: 'e2e', token: E2E_TOKENS[id], autoDiscovery: false });
  setup?.(participant);
  return participant.connect().then(() => participant);
}

const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

let tools: MEWParticipant;
let agent: MEWParticipant;
let u: string;

test.beforeEach(async () => {
  u = Date.now().toString(36);
  tools = await connect('tools', (p) =>
    p.tools.register({ name: 'note_down', security: { risk_level: 'moderate' }, execute: ({ text }) => `Noted: ${String(text)}` }),
  );
  agent = await connect('agent');
});

test.afterEach(async () => {
  // The pause persists in the server's data: lift it so other journeys find the agent active.
  const human = await connect('human');
  human.send({ kind: 'participant/resume', to: ['agent'], payload: {} });
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const p of [human, agent, tools]) p.disconnect();
});

test('an approval, a rejection and a pause made in the browser appear in the audit view with who made them; a decided proposal opens its trail; export downloads the filtered rows', async ({
  page,
}) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');

  const approved = agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: `keep ${u}` } } }, 20_000);
  const approvedCard = queue(page)
    .getByRole('article', { name: 'note_down' })
    .filter({ hasText: `keep ${u}` });
  await approvedCard.getByRole('button', { name: 'Approve', exact: true }).click();
  expect(await approved).toMatchObject({ content: [{ text: `Noted: keep ${u}` }] });

  const rejected = agent
    .mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: `drop ${u}` } } }, 20_000)
    .catch((e: Error) => e);
  const rejectedCard = queue(page)
    .getByRole('article', { name: 'note_down' })
    .filter({ hasText: `drop ${u}` });
  await rejectedCard.getByRole('button', { name: 'Reject' }).click();
  const rejectDialog = page.getByRole('dialog', { name: 'Reject note_down' });
  await rejectDialog.getByRole('radio', { name: 'Unsafe' }).check();
  await rejectDialog.getByRole('button', { name: 'Reject' }).click();
  expect(await rejected).toBeInstanceOf(Error);

  const agentCard = page.getByRole('article', { name: /^agent\b/ });
  await agentCard.getByRole('button', { name: 'Controls for agent' }).click();
  await page.getByRole('menuitem', { name: 'Pause…' }).click();
  await page.getByRole('dialog', { name: 'Pause agent' }).getByRole('button', { name: 'Pause' }).click();
  await expect(agentCard.getByText(/^Paused/)).toBeVisible();

  // The audit view: one click from the header.
  await page.getByRole('button', { name: 'Audit log', exact: true }).click();
  const audit = page.getByRole('dialog', { name: 'Audit log' });
  await expect(audit.getByText(/Hash chain verified: \d+ events intact/)).toBeVisible();
  await audit.getByRole('textbox', { name: 'Actor' }).fill('human');
  const rows = audit.getByRole('table', { name: 'Audit events' }).getByRole('row');
  // Filtered: the tool provider's own events (its joins) are gone.
  await expect(audit.getByRole('cell', { name: 'tools', exact: true })).toHaveCount(0);
  for (const type of ['PROPOSAL_FULFILLED', 'PROPOSAL_REJECTED', 'PARTICIPANT_PAUSED']) {
    await expect(rows.filter({ hasText: type }).filter({ hasText: 'human' }).first()).toBeVisible();
  }
  const paused = rows.filter({ hasText: 'PARTICIPANT_PAUSED' }).first();
  await paused.click();
  await expect(audit.getByRole('region', { name: /^Audit event \d+$/ })).toContainText('"subject": "agent"');

  // Export what the filter shows.
  const download = page.waitForEvent('download');
  await audit.getByRole('button', { name: 'Export JSONL' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('audit-e2e.jsonl');
  const exported = (await (await file.createReadStream()).toArray())
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { actor?: string });
  expect(exported.length).toBeGreaterThan(2);
  expect(exported.filter((event) => event.actor !== 'human')).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(audit).toBeHidden();

  // A decided proposal's history is its trail: proposed, approved by whom, executed.
  await approvedCard.getByRole('button', { name: /^History of note_down/ }).click();
  await expect(audit.getByRole('textbox', { name: 'Proposal' })).not.toHaveValue('');
  for (const type of ['PROPOSAL_CREATED', 'PROPOSAL_FULFILLED', 'PROPOSAL_EXECUTED']) await expect(rows.filter({ hasText: type })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'PROPOSAL_EXECUTED' })).toContainText('success');
});

test('a participant who is not an operator has no way into the audit log', async ({ page }) => {
  await page.goto(signInUrl('e2e', E2E_TOKENS.agent));
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page.getByRole('heading', { name: /MEW Dashboard/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Audit log' })).toHaveCount(0);
  await page.keyboard.press('Control+k');
  await page.getByPlaceholder('Type a command or a participant…').fill('audit');
  await expect(page.getByRole('option', { name: /audit log/i })).toHaveCount(0);
  // And the server refuses the API, whatever the page shows.
  const refused = await page.evaluate(
    async (token) => (await fetch('/api/spaces/e2e/audit', { headers: { Authorization: `Bearer ${token}` } })).status,
    E2E_TOKENS.agent,
  );
  expect(refused).toBe(401);
});

test('a capability violation by an agent shows on its card and in the operator’s security feed at once; one click pauses it', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const feed = page.getByRole('region', { name: 'Security events' });
  await expect(feed).toBeVisible();

  // The SDK would refuse locally; the raw client lets the gateway decide.
  agent.client.send({ id: `kick-${u}`, kind: 'space/kick', payload: { participant_id: 'human' } });
  const refusal = feed
    .getByRole('listitem')
    .filter({ hasText: 'agent' })
    .filter({ hasText: 'capability_violation' })
    .filter({ hasText: 'tried space/kick' })
    .first();
  await expect(refusal).toBeVisible({ timeout: 2_000 });
  const agentCard = page.getByRole('article', { name: /^agent\b/ });
  await expect(agentCard.getByText(/^\d+ refused$/)).toBeVisible();

  await refusal.getByRole('button', { name: 'Pause agent' }).click();
  await expect(agentCard.getByText(/^Paused/)).toBeVisible();
});

test('an approval rule decides in the server: the agent’s matching proposal is approved with no click, and the card says by whom', async ({
  page,
  request,
}) => {
  const created = await request.post('/api/spaces/e2e/rules', {
    headers: { Authorization: `Bearer ${E2E_TOKENS.human}` },
    data: { name: `notes ${u}`, decision: 'approve', match: { proposer: 'agent', tool: 'note_down', arguments: { text: `auto ${u}*` } } },
  });
  expect(created.status()).toBe(201);
  const { rule } = (await created.json()) as { rule: { id: string } };
  try {
    await page.goto(signInUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    const result = await agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: `auto ${u} one` } } }, 20_000);
    expect(result).toMatchObject({ content: [{ text: `Noted: auto ${u} one` }] });
    const card = queue(page)
      .getByRole('article', { name: 'note_down' })
      .filter({ hasText: `auto ${u} one` });
    await expect(card.getByText('completed', { exact: true })).toBeVisible();
    await expect(card.getByText(`Approved by rule notes ${u} (v1).`)).toBeVisible();
  } finally {
    await request.delete(`/api/spaces/e2e/rules/${rule.id}`, { headers: { Authorization: `Bearer ${E2E_TOKENS.human}` } });
  }
});
