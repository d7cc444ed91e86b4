import { expect, test } from '@playwright/test';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, signInUrl } from './fixtures/space';

// The card of a participant shows each control's reply as it comes: awaiting it, in progress (interim status), then
// completed with what the reply said. `agent` is scripted with the SDK, whose answers to controls are under test too.

let agent: MEWParticipant;
let finishCompaction: () => void;

test.beforeEach(async () => {
  // Compaction waits for the test, so the interim `compacting` status can be seen before compact-done.
  const compacted = new Promise<void>((resolve) => (finishCompaction = resolve));
  agent = await connectParticipant('agent', {
    hooks: {
      onCompact: async () => {
        await compacted;
        return { freed_tokens: 1200, freed_messages: 8, status: 'compacted' };
      },
    },
  });
});
test.afterEach(() => agent.disconnect());

test('compact, restart and shutdown complete on the card with what the agent answered', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'agent' });
  await expect(card.getByText('Online')).toBeVisible();
  const controls = card.getByRole('button', { name: 'Controls for agent' });
  const status = card.getByRole('status');

  await controls.click();
  await page.getByRole('menuitem', { name: 'Compact…' }).click();
  await page.getByRole('dialog', { name: 'Compact agent' }).getByRole('button', { name: 'Compact' }).click();
  await expect(status).toContainText('Last control: compact by human');
  await expect(status).toContainText('in progress: status received (compacting)');
  finishCompaction();
  await expect(status).toContainText('completed: compact-done: freed 1,200 tokens, 8 messages · status received (compacted)');

  await controls.click();
  await page.getByRole('menuitem', { name: 'Restart…' }).click();
  await page.getByRole('dialog', { name: 'Restart agent?' }).getByRole('button', { name: 'Restart' }).click();
  await expect(status).toContainText('Last control: restart by human');
  await expect(status).toContainText('completed: status received (restarting)');

  await controls.click();
  await page.getByRole('menuitem', { name: 'Shut down…' }).click();
  await page.getByRole('dialog', { name: 'Shut down agent?' }).getByRole('button', { name: 'Shut down' }).click();
  await expect(status).toContainText('Last control: shutdown by human');
  await expect(status).toContainText('completed: acknowledged (shutting down)');
  // Acknowledged, then gone: the SDK leaves the space after a shutdown.
  await expect(card.getByText('Online')).toBeHidden();
  expect(agent.client.status).toBe('disconnected');
});
