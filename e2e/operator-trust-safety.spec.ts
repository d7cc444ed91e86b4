import { expect, test, type Page } from '@playwright/test';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, demoToken, E2E_PORT, signInUrl } from './fixtures/space';

// One safety model (#27): every destructive or memory-losing action either asks once, saying what will be lost
// (a process's Stop and Restart, Restart… / Clear… / Kick… in Controls, cancelling a reasoning), or acts at once
// with Undo (revoking a grant); menus offer only what applies to the participant as it is now.

const card = (page: Page, id: string) => page.getByRole('article', { name: new RegExp(`^${id}\\b`) });
const toast = (page: Page, text: string) => page.locator('[data-sonner-toast]').filter({ hasText: text });

test('Stop and Restart of a launched agent ask once with what it loses; Cancel keeps it running; Start asks nothing', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`/spaces/demo#token=${demoToken('human')}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const auditor = card(page, 'auditor');
  const process = auditor.getByRole('group', { name: 'Process of auditor' });
  await expect(process.getByText('running', { exact: true })).toBeVisible({ timeout: 30_000 });
  // The agent has reported its working context, which the question quotes.
  await expect(auditor.getByRole('meter', { name: 'Context usage of auditor' })).toBeVisible({ timeout: 30_000 });

  await process.getByRole('button', { name: 'stop auditor', exact: true }).click();
  const stop = page.getByRole('dialog', { name: 'Stop auditor?' });
  await expect(stop).toContainText('stays stopped (no automatic restart) until someone presses Start');
  await expect(stop).toContainText(/Its working memory — [\d,]+ tokens and [\d,]+ messages? at its last report — is lost\./);
  await expect(stop.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await stop.getByRole('button', { name: 'Cancel' }).click();
  await expect(stop).toBeHidden();
  await expect(process.getByText('running', { exact: true })).toBeVisible();
  await expect(auditor.getByText('Online')).toBeVisible();

  await process.getByRole('button', { name: 'restart auditor', exact: true }).click();
  const restart = page.getByRole('dialog', { name: 'Restart auditor?' });
  await expect(restart).toContainText(/Its working memory — .* is lost\./);
  await restart.getByRole('button', { name: 'Restart' }).click();
  await expect(toast(page, 'Restarted auditor')).toBeVisible();
  await expect(process.getByText('running', { exact: true })).toBeVisible({ timeout: 30_000 });

  await process.getByRole('button', { name: 'stop auditor', exact: true }).click();
  await page.getByRole('dialog', { name: 'Stop auditor?' }).getByRole('button', { name: 'Stop' }).click();
  await expect(toast(page, 'Stopped auditor')).toBeVisible();
  await expect(process.getByText('stopped', { exact: true })).toBeVisible();
  await expect(auditor.getByText(/Offline/)).toBeVisible({ timeout: 10_000 });

  await process.getByRole('button', { name: 'start auditor', exact: true }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(process.getByText('running', { exact: true })).toBeVisible({ timeout: 10_000 });
  await expect(auditor.getByText('Online')).toBeVisible({ timeout: 30_000 });
});

test('the controls menu offers only what applies, opens unclipped, and memory-losing controls say what is lost', async ({ page }) => {
  const agent = await connectParticipant('agent', { autoDiscovery: false });
  try {
    await page.goto(signInUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    const agentCard = card(page, 'agent');
    await expect(agentCard.getByText('Online')).toBeVisible();
    agent.send({ kind: 'participant/status', payload: { tokens: 174, max_tokens: 8000, messages_in_context: 12 } });
    await expect(agentCard.getByText('12 messages', { exact: true })).toBeVisible();

    const controls = agentCard.getByRole('button', { name: 'Controls for agent' });
    const menu = page.getByRole('menu', { name: 'Controls for agent' });
    await controls.click();
    await expect(menu.getByRole('menuitem', { name: 'Pause…' })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Resume' })).toHaveCount(0);
    // In the top layer: wholly on screen, and nothing painted over its last item.
    const box = (await menu.boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    const onTop = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('[role="menu"]')?.getAttribute('aria-label'), {
      x: box.x + box.width / 2,
      y: box.y + box.height - 6,
    });
    expect(onTop).toBe('Controls for agent');

    await menu.getByRole('menuitem', { name: 'Restart…' }).click();
    const restart = page.getByRole('dialog', { name: 'Restart agent?' });
    await expect(restart).toContainText('Its working memory — 174 tokens and 12 messages at its last report — is lost.');
    await expect(restart.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(restart).toBeHidden();

    await controls.click();
    await menu.getByRole('menuitem', { name: 'Clear…' }).click();
    const clear = page.getByRole('dialog', { name: 'Clear agent?' });
    await expect(clear).toContainText('174 tokens and 12 messages');
    await clear.getByRole('button', { name: 'Cancel' }).click();

    await controls.click();
    await menu.getByRole('menuitem', { name: 'Kick…' }).click();
    await expect(page.getByRole('dialog', { name: 'Kick agent?' })).toContainText('it cannot rejoin unless invited again');
    await page.keyboard.press('Escape');

    // Paused, the menu offers Resume and no longer Pause.
    await controls.click();
    await menu.getByRole('menuitem', { name: 'Pause…' }).click();
    await page.getByRole('dialog', { name: 'Pause agent' }).getByRole('button', { name: 'Pause' }).click();
    await expect(agentCard.getByText(/^Paused/)).toBeVisible();
    await controls.click();
    await expect(menu.getByRole('menuitem', { name: 'Pause…' })).toHaveCount(0);
    await menu.getByRole('menuitem', { name: 'Resume' }).click();
    await expect(agentCard.getByText(/^Paused/)).toBeHidden();
  } finally {
    agent.disconnect();
  }
});

test('revoking a grant acts at once and its toast offers Undo, which grants it back', async ({ page }) => {
  const agent = await connectParticipant('agent', { autoDiscovery: false });
  // A second operator grants from Node, so the browser's human only revokes and undoes.
  const reviewer = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: 'e2e', token: 'e2e-reviewer-token-000000006', autoDiscovery: false });
  await reviewer.connect();
  try {
    const tool = `undo_e2e_${Date.now().toString(36)}`;
    const call = { method: 'tools/call', params: { name: tool, arguments: {} } };
    await reviewer.operate.grant({
      recipient: 'agent',
      capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: tool } } }],
      reason: 'e2e: undo',
    }).accepted;
    await expect.poll(() => agent.canSend('mcp/request', call)).toBe(true);

    await page.goto(signInUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    await card(page, 'agent').getByRole('button', { name: 'Capabilities of agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Capabilities of agent' });
    const grant = dialog.getByRole('list', { name: 'Grants in force' }).getByRole('listitem').filter({ hasText: tool });
    // In plain words, the exact pattern on hover.
    await expect(grant).toContainText(`call ${tool} directly, without approval`);
    await grant.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => agent.canSend('mcp/request', call)).toBe(false);

    // Undo in the toast (shown above the modal), and in place in the dialog too.
    await expect(toast(page, 'Revoked a grant of agent').getByRole('button', { name: 'Undo' })).toBeVisible();
    await expect(grant).toHaveCount(0);
    await dialog.getByRole('status').filter({ hasText: 'Revoked a grant of agent.' }).getByRole('button', { name: 'Undo' }).click();
    await expect(toast(page, 'Granted back to agent')).toBeVisible();
    await expect.poll(() => agent.canSend('mcp/request', call)).toBe(true);
    await expect(grant).toHaveCount(1);

    // Closed, the dialog leaves the toast's Undo reachable: revoke again, then undo from the toast.
    await grant.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => agent.canSend('mcp/request', call)).toBe(false);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    // Sonner puts the newest toast first, in front.
    await toast(page, 'Revoked a grant of agent').first().getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => agent.canSend('mcp/request', call)).toBe(true);
  } finally {
    reviewer.disconnect();
    agent.disconnect();
  }
});
