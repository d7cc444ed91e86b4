import { randomUUID } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import type { AnyEnvelope } from '../lib/protocol';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, E2E_TOKENS, signInUrl } from './fixtures/space';

// Budget guards, end to end: the human sets a token budget on the scripted agent from its card; the agent's own
// status reports cross 80 % (a toast, an amber gauge) and 100 %, where the gateway pauses it and the card says why.

const AS_HUMAN = { Authorization: `Bearer ${E2E_TOKENS.human}` };

/** The budget and any pause persist in the server's data: lift both so no other journey finds them. */
async function reset(request: APIRequestContext) {
  await request.delete('/api/spaces/e2e/budgets/agent', { headers: AS_HUMAN });
  const human = await connectParticipant('human', { autoDiscovery: false });
  human.send({ kind: 'participant/resume', to: ['agent'], payload: {} });
  await new Promise((resolve) => setTimeout(resolve, 200));
  human.disconnect();
}

/** The gateway's refusal of a chat sent through the agent's raw client (the SDK would refuse it locally first). */
function refusalOfChat(agent: MEWParticipant): Promise<string> {
  const id = randomUUID();
  const refused = new Promise<string>((resolve) => {
    const off = agent.client.on('message', (envelope: AnyEnvelope) => {
      if (envelope.kind !== 'system/error' || !envelope.correlation_id?.includes(id)) return;
      off();
      resolve(String(envelope.payload.error));
    });
  });
  agent.client.send({ id, kind: 'chat', payload: { text: 'one more task' } });
  return refused;
}

let agent: MEWParticipant;
test.beforeEach(async ({ request }) => {
  await reset(request);
  agent = await connectParticipant('agent', { autoDiscovery: false });
});
test.afterEach(async ({ request }) => {
  agent.disconnect();
  await reset(request);
});

test('crossing a token budget pauses the agent and the card shows why; the agent’s next chat is refused', async ({ page }) => {
  /** What the agent reports having consumed so far this session. */
  const spent = (totalTokens: number) => {
    agent.telemetry.record({ totalTokens });
    agent.telemetry.report();
  };
  spent(0);
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'agent' });
  await expect(card.getByText('Online')).toBeVisible();
  await expect(card.getByRole('meter', { name: 'Budget of agent' })).toHaveCount(0);

  await card.getByRole('button', { name: 'Controls for agent' }).click();
  await page.getByRole('menuitem', { name: 'Set budget…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Budget of agent' });
  const tokens = dialog.getByRole('spinbutton', { name: 'Tokens' });
  await expect(tokens).toBeFocused();
  await tokens.fill('10000');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const gauge = card.getByRole('meter', { name: 'Budget of agent' });
  await expect(card.getByText('Budget 0 / 10 000 tokens')).toBeVisible();
  await expect(gauge).toHaveAttribute('data-state', 'ok');

  spent(8_200);
  await expect(page.getByText('agent passed 80% of its budget')).toBeVisible();
  await expect(card.getByText('Budget 8 200 / 10 000 tokens')).toBeVisible();
  await expect(gauge).toHaveAttribute('data-state', 'warning');
  await expect(card.getByText('82% · warning')).toBeVisible();

  spent(10_000);
  await expect(card.getByText(/^Paused/)).toContainText('by system:gateway');
  await expect(card.getByText('paused: budget exhausted')).toBeVisible();
  await expect(gauge).toHaveAttribute('data-state', 'exceeded');
  await expect(page.getByText('agent paused: budget exhausted')).toBeVisible();
  expect(agent.controls.pause).toMatchObject({ by: 'system:gateway', reason: 'budget_exhausted: 10 000 of 10 000 tokens' });
  expect(await refusalOfChat(agent)).toBe('participant_paused');

  // Clearing the budget does not resume the agent: the operator does, as usual.
  await card.getByRole('button', { name: 'Controls for agent' }).click();
  await page.getByRole('menuitem', { name: 'Set budget…' }).click();
  await dialog.getByRole('button', { name: 'Clear' }).click();
  await expect(gauge).toHaveCount(0);
  await expect(card.getByText(/^Paused/)).toBeVisible();
  await card.getByRole('button', { name: 'Controls for agent' }).click();
  await page.getByRole('menuitem', { name: 'Resume' }).click();
  await expect(card.getByText(/^Paused/)).toBeHidden();
});
