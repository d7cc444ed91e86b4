import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import WebSocket from 'ws';
import type { AnyEnvelope, Envelope } from '../lib/protocol';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import type { OutgoingEnvelope } from '../lib/sdk/mew-client';
import { connectParticipant, signInUrl } from './fixtures/space';

// Journeys of the operators' rail: the browser is `human` (`*`); `agent` (proposal-only) is scripted from Node.

type Settled = { accepted: true } | { error: string };

/**
 * Sends through the agent's raw client (bypassing the SDK's own pause check, so the gateway decides) and resolves
 * with the gateway's verdict: the echo (accepted) or the correlated `system/error`.
 */
function settle(agent: MEWParticipant, envelope: OutgoingEnvelope): Promise<Settled> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no verdict on ${envelope.kind} within 5 s`));
    }, 5000);
    const off = agent.client.on('message', (env: AnyEnvelope) => {
      if (env.id === id) done({ accepted: true });
      else if (env.kind === 'system/error' && env.correlation_id?.includes(id)) done({ error: String(env.payload.error) });
    });
    function done(verdict: Settled) {
      clearTimeout(timer);
      off();
      resolve(verdict);
    }
    agent.client.send({ ...envelope, id });
  });
}

function nextWelcome(agent: MEWParticipant): Promise<Envelope<'system/welcome'>> {
  return new Promise((resolve) => {
    const off = agent.client.on('welcome', (welcome) => {
      off();
      resolve(welcome);
    });
  });
}

async function openRail(page: Page) {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'agent' });
  await expect(card.getByText('Online')).toBeVisible();
  return card;
}

let agent: MEWParticipant;
test.beforeEach(async () => {
  agent = await connectParticipant('agent', { autoDiscovery: false });
});
test.afterEach(() => agent.disconnect());

test('a grant lets the agent call a tool and revoking it takes that back; an invalid pattern cannot be granted', async ({ page }) => {
  const tool = `read_e2e_${Date.now()}`;
  const call = {
    kind: 'mcp/request',
    to: ['tools'],
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } },
  } as OutgoingEnvelope;
  expect(await settle(agent, call)).toEqual({ error: 'capability_violation' });

  const card = await openRail(page);
  await card.getByRole('button', { name: 'Capabilities of agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'Capabilities of agent' });
  const grant = dialog.getByRole('button', { name: 'Grant', exact: true });

  // Live validation names the path of the bad value and keeps Grant disabled.
  await dialog.getByRole('radio', { name: /Custom JSON/ }).check();
  await dialog.getByLabel('Capability patterns (JSON)').fill('[{"kind": "mcp/request", "payload": {"method": "/(/"}}]');
  await expect(dialog.getByText(/^Invalid at \[0\]\.payload\.method: /)).toBeVisible();
  await expect(grant).toBeDisabled();
  await dialog.getByLabel('Capability patterns (JSON)').fill('[{"kind": "mcp/request",');
  await expect(dialog.getByText(/^Invalid: Not valid JSON/)).toBeVisible();
  await expect(grant).toBeDisabled();

  await dialog.getByRole('radio', { name: /A tool by name/ }).check();
  await dialog.getByLabel('Tool name').fill(tool);
  await expect(dialog.getByText('Valid: 1 pattern.')).toBeVisible();
  await expect(dialog.getByRole('region', { name: 'Preview against recent envelopes' })).toContainText('Would have allowed');
  await dialog.getByLabel(/^Reason/).fill('e2e: one tool');
  const granted = nextWelcome(agent);
  await grant.click();
  await expect(dialog.getByText(/^Granted to agent\./)).toBeVisible();
  const capability = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: tool } } };
  expect((await granted).payload.you.capabilities).toContainEqual(capability);
  expect(await settle(agent, call)).toEqual({ accepted: true });

  // The card credits the grant to its granter.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await card.getByText(/Capabilities: \d+ base/).click();
  await expect(card.getByText(tool)).toBeVisible();
  await expect(card.getByRole('listitem').filter({ hasText: tool })).toContainText('by human');

  await card.getByRole('button', { name: 'Capabilities of agent' }).click();
  const revoked = nextWelcome(agent);
  await dialog.getByRole('list', { name: 'Grants in force' }).getByRole('listitem').filter({ hasText: tool }).getByRole('button', { name: 'Revoke' }).click();
  expect((await revoked).payload.you.capabilities).not.toContainEqual(capability);
  await expect(dialog.getByRole('list', { name: 'Grants in force' })).not.toContainText(tool);
  expect(await settle(agent, call)).toEqual({ error: 'capability_violation' });
});

test('pausing the agent from its card stops its messages and resuming restores them', async ({ page }) => {
  const chat = { kind: 'chat', payload: { text: 'still there?' } } as OutgoingEnvelope;
  const card = await openRail(page);
  const paused = card.getByText(/^Paused/);

  await card.getByRole('button', { name: 'Controls for agent' }).click();
  await page.getByRole('menuitem', { name: 'Pause…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Pause agent' });
  await expect(dialog.getByLabel('Timeout (seconds, optional)')).toBeFocused();
  await dialog.getByRole('button', { name: 'Pause' }).click();
  await expect(paused).toBeVisible();
  await expect(card.getByRole('status')).toContainText('Last control: pause by human');
  expect(await settle(agent, chat)).toEqual({ error: 'participant_paused' });

  // Resume from the keyboard: the menu opens on its first item (paused, that is Resume: Pause is no longer
  // offered), arrows move and wrap, Enter selects.
  const controls = card.getByRole('button', { name: 'Controls for agent' });
  await controls.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitem', { name: 'Resume' })).toBeFocused();
  await expect(page.getByRole('menuitem', { name: 'Pause…' })).toHaveCount(0);
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitem', { name: 'Resume' })).not.toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('menuitem', { name: 'Resume' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(controls).toBeFocused();
  await expect(paused).toBeHidden();
  expect(await settle(agent, chat)).toEqual({ accepted: true });
});

test('an invite shows the minted token once, with the connection URL, and the token joins the space', async ({ page, context }, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const invitee = `invitee-${Date.now()}`;
  await openRail(page);
  const open = page.getByRole('button', { name: 'Invite…' });
  await open.click();
  const dialog = page.getByRole('dialog', { name: 'Invite a participant' });
  const id = dialog.getByLabel('Participant id');
  const invite = dialog.getByRole('button', { name: 'Invite', exact: true });
  await expect(id).toBeFocused();
  await id.fill('..');
  await expect(dialog.getByText('Cannot be "." or "..".')).toBeVisible();
  await expect(invite).toBeDisabled();
  await id.fill('agent');
  await expect(dialog.getByText('“agent” is already a participant.')).toBeVisible();
  await id.fill(invitee);
  await expect(dialog.getByRole('radio', { name: /Proposal-only/ })).toBeChecked();
  await invite.click();

  await expect(dialog.getByText('it will not be shown again')).toBeVisible();
  const token = await dialog.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
  const url = await dialog.getByRole('textbox', { name: 'Connection URL' }).inputValue();
  expect(url).toMatch(/^ws:\/\/.+\/ws\?space=e2e$/);
  await dialog.getByRole('button', { name: 'Copy token' }).click();
  await expect(dialog.getByText('Copied')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: testInfo.outputPath('invite-token-390.png') });

  // The minted token joins the space from Node, with the capabilities the invite gave.
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
  const welcome = await new Promise<Envelope<'system/welcome'>>((resolve, reject) => {
    socket.on('message', (data) => {
      const envelope = JSON.parse(String(data));
      if (envelope.kind === 'system/welcome') resolve(envelope);
    });
    socket.on('error', reject);
  });
  expect(welcome.payload.you.id).toBe(invitee);
  expect(welcome.payload.you.capabilities).toEqual([{ kind: 'mcp/proposal' }, { kind: 'chat' }]);
  await expect(page.getByRole('article', { name: invitee }).getByText('Online')).toBeVisible();
  socket.close();

  // Once: closing the dialog forgets the token.
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  await expect(open).toBeFocused();
  await open.click();
  await expect(dialog.getByLabel('Participant id')).toHaveValue('');
  await expect(dialog.getByRole('textbox', { name: 'Token', exact: true })).toHaveCount(0);
});

test('a status report from the agent fills its context gauge: 80% is amber', async ({ page }) => {
  const card = await openRail(page);
  await expect(card.getByText('No context report yet')).toBeVisible();
  agent.send({ kind: 'participant/status', payload: { tokens: 8000, max_tokens: 10000, messages_in_context: 12 } });
  const meter = card.getByRole('meter', { name: 'Context usage of agent' });
  await expect(meter).toHaveAttribute('aria-valuenow', '80');
  await expect(meter).toHaveAttribute('aria-valuetext', '8,000 of 10,000 tokens, 80% (high)');
  await expect(meter).toHaveAttribute('data-level', 'amber');
  await expect(card.getByText('80% · high')).toBeVisible();
  await expect(card.getByText('12 messages', { exact: true })).toBeVisible();
});

test('controls show the agent’s answer, and destructive ones ask first', async ({ page }) => {
  agent.disconnect();
  agent = await connectParticipant('agent', {
    autoDiscovery: false,
    hooks: { onCompact: () => ({ freed_tokens: 1200, status: 'compacted' }) },
  });
  const card = await openRail(page);
  const controls = card.getByRole('button', { name: 'Controls for agent' });

  await controls.click();
  await page.getByRole('menuitem', { name: 'Compact…' }).click();
  const compact = page.getByRole('dialog', { name: 'Compact agent' });
  await compact.getByLabel('Target tokens (optional)').fill('4000');
  await compact.getByRole('button', { name: 'Compact' }).click();
  await expect(card.getByRole('status')).toContainText('compact-done: freed 1,200 tokens');

  await controls.click();
  await page.getByRole('menuitem', { name: 'Request status' }).click();
  await expect(card.getByRole('status')).toContainText('request status by human');
  await expect(card.getByRole('status')).toContainText('status received');

  // Clear asks first, saying what goes, starting on Cancel; Escape leaves everything as it was.
  await controls.click();
  await page.getByRole('menuitem', { name: 'Clear…' }).click();
  const clear = page.getByRole('dialog', { name: 'Clear agent?' });
  await expect(clear).toContainText(/Its working memory .*is lost\./);
  await expect(clear.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(clear).toBeHidden();
  await expect(controls).toBeFocused();
  await expect(card.getByRole('status')).toContainText('request status by human');
});

test('the rail at desktop and phone widths', async ({ page }, testInfo) => {
  const card = await openRail(page);
  agent.send({ kind: 'participant/status', payload: { tokens: 15_500, max_tokens: 20_000, messages_in_context: 48, latency_ms: 420 } });
  await expect(card.getByRole('meter')).toHaveAttribute('aria-valuenow', '78');
  await card.getByText(/Capabilities: \d+ base/).click();
  const rail = page.getByRole('region', { name: /^Participants/ });
  await page.setViewportSize({ width: 1280, height: 900 });
  await rail.screenshot({ path: testInfo.outputPath('rail-1280.png') });
  await card.getByRole('button', { name: 'Controls for agent' }).click();
  await expect(page.getByRole('menu', { name: 'Controls for agent' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('menu-1280.png') });
  await page.keyboard.press('Escape');
  await card.getByRole('button', { name: 'Capabilities of agent' }).click();
  await expect(page.getByRole('dialog', { name: 'Capabilities of agent' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('editor-1280.png') });
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 390, height: 844 });
  await card.scrollIntoViewIfNeeded();
  await rail.screenshot({ path: testInfo.outputPath('rail-390.png') });
  await card.getByRole('button', { name: 'Capabilities of agent' }).click();
  await page.screenshot({ path: testInfo.outputPath('editor-390.png') });
});
