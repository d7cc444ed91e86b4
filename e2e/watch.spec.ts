import { readFile } from 'node:fs/promises';
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, signInUrl } from './fixtures/space';

// The gateway's history replays earlier tests' envelopes into each fresh page, so every test tags its own data.
const tagged = () => Math.random().toString(36).slice(2, 8);

let agent: MEWParticipant | undefined;
test.afterEach(() => {
  agent?.disconnect();
  agent = undefined;
});

async function openControlRoom(page: Page) {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
}

test('a status report updates the telemetry charts and "Request status now" brings a fresh one', async ({ page }) => {
  agent = await connectParticipant('agent', { telemetry: { maxTokens: 20_000 } });
  await openControlRoom(page);
  const panel = page.getByRole('region', { name: 'Telemetry' });
  await panel.getByLabel('Participant').selectOption('agent');

  agent.telemetry.record({ tokens: 4_321, messages: 17, latencyMs: 350 });
  agent.telemetry.report({ status: 'working' });
  await expect(panel.getByText('4,321 / 20,000')).toBeVisible();
  await expect(panel.getByRole('meter', { name: 'Context usage of agent' })).toHaveAttribute('aria-valuenow', '22');
  await expect(panel.getByText('working')).toBeVisible();
  for (const chart of ['Tokens vs max', 'Messages in context', 'Latency (ms)']) {
    await expect(panel.getByRole('figure').filter({ hasText: chart })).toBeVisible();
  }
  // The chart itself drew the series: its canvas has pixels in the tokens line's colour (sky-400).
  const tokensCanvas = panel.getByRole('figure').filter({ hasText: 'Tokens vs max' }).locator('canvas');
  await expect
    .poll(() =>
      tokensCanvas.evaluate((canvas: HTMLCanvasElement) => {
        const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        let drawn = 0;
        for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - 56) + Math.abs(data[i + 1] - 189) + Math.abs(data[i + 2] - 248) < 40) drawn++;
        return drawn;
      }),
    )
    .toBeGreaterThan(0);

  // The agent's SDK answers participant/request-status on its own, from its current usage.
  agent.telemetry.record({ tokens: 15_000, messages: 40, latencyMs: 120 });
  const answered = new Promise<string[]>((resolve) => agent!.client.on('participant/request-status', (envelope) => resolve(envelope.to ?? [])));
  await panel.getByRole('button', { name: 'Request status now' }).click();
  expect(await answered).toEqual(['agent']);
  await expect(panel.getByText('15,000 / 20,000')).toBeVisible();
  await expect(panel.getByRole('meter', { name: 'Context usage of agent' })).toHaveAttribute('aria-valuenow', '75');
  await expect(panel.getByText(/^Answered at /)).toBeVisible();
});

test('a reasoning thread streams live when expanded and is cancelled from the UI', async ({ page }) => {
  const tag = tagged();
  agent = await connectParticipant('agent');
  await openControlRoom(page);
  const panel = page.getByRole('region', { name: 'Reasoning' });

  const reasoning = agent.reasoning.start({ message: `Planning ${tag}` });
  const thread = panel.getByRole('listitem').filter({ hasText: `Planning ${tag}` });
  await expect(thread.getByText('thinking…')).toBeVisible();
  const toggle = thread.getByRole('button', { name: new RegExp(`Planning ${tag}`) });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  reasoning.thought(`collapsed ${tag}`);
  await expect(toggle).toContainText('1 thought');
  await expect(thread.getByText(`collapsed ${tag}`)).toHaveCount(0);

  await toggle.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(thread.getByText(`collapsed ${tag}`)).toBeVisible();
  reasoning.thought(`checking the YAML ${tag}`);
  await expect(thread.getByText(`checking the YAML ${tag}`)).toBeVisible();
  // A thought from the thread's stream (linked by its correlation to the reasoning/start).
  const stream = await agent.streams.request({ direction: 'upload', encoding: 'text', description: 'reasoning trace' }, { correlationId: [reasoning.id] });
  stream.write(JSON.stringify({ message: `streamed ${tag}` }));
  await expect(thread.getByText(`streamed ${tag}`)).toBeVisible();
  await expect(thread.getByRole('list', { name: 'Thoughts' })).toHaveAttribute('aria-live', 'polite');

  const cancelled = new Promise<{ by: string; reason?: string }>((resolve) => reasoning.onCancel(resolve));
  await thread.getByRole('button', { name: 'Cancel reasoning' }).click();
  // It asks once, saying what goes (where the reasoning was going; its thoughts stay), starting on the safe choice.
  const confirm = page.getByRole('dialog', { name: 'Cancel agent’s reasoning?' });
  await expect(confirm.getByRole('button', { name: 'Keep it running' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Cancel reasoning' }).click();
  expect(await cancelled).toEqual({ by: 'human', reason: 'cancelled by human' });
  await expect(page.getByText('Cancelled agent’s reasoning')).toBeVisible();
  expect(reasoning.cancelled).toBe(true);
  await expect(thread.getByText('thinking…')).toHaveCount(0);
  await expect(thread.getByText('Cancelled by human')).toBeVisible();
  await expect(thread.getByRole('button', { name: 'Cancel reasoning' })).toHaveCount(0);
});

test('chats addressed to the human queue for acknowledgement; acknowledge one, cancel all the rest', async ({ page }) => {
  const tag = tagged();
  agent = await connectParticipant('agent');
  const acks: { id: string; correlation: string[] }[] = [];
  const cancels: string[] = [];
  const chatsToAgent: { text: string; to?: string[] }[] = [];
  agent.client.on('chat/acknowledge', (e) => e.from === 'human' && acks.push({ id: e.id, correlation: e.correlation_id ?? [] }));
  agent.client.on('chat/cancel', (e) => e.from === 'human' && cancels.push(...(e.correlation_id ?? [])));
  agent.client.on('chat', (e) => e.from === 'human' && chatsToAgent.push({ text: e.payload.text, to: e.to }));
  await openControlRoom(page);

  const first = agent.chat.send(`Please confirm ${tag} one`, 'human');
  const second = agent.chat.send(`Please confirm ${tag} two`, 'human');
  const third = agent.chat.send(`Please confirm ${tag} three`, 'human');
  agent.chat.send(`Broadcast ${tag}`);
  const queue = page.getByRole('region', { name: /Awaiting your acknowledgement/ });
  for (const n of ['one', 'two', 'three']) await expect(queue.getByText(`Please confirm ${tag} ${n}`)).toBeVisible();
  await expect(queue.getByText(`Broadcast ${tag}`)).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Messages' }).getByText(`Broadcast ${tag}`)).toBeVisible();

  await queue
    .getByRole('listitem')
    .filter({ hasText: `${tag} one` })
    .getByRole('button', { name: 'Acknowledge' })
    .click();
  await expect.poll(() => acks.some((a) => a.correlation.includes(first.id))).toBe(true);
  await expect(queue.getByText(`Please confirm ${tag} one`)).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Messages' }).getByText('acknowledged by human').first()).toBeVisible();

  await queue.getByRole('button', { name: 'Cancel all' }).click();
  await expect.poll(() => [second.id, third.id].every((id) => cancels.includes(id))).toBe(true);
  await expect(queue).toHaveCount(0);

  // And the human answers the agent alone from the composer, with the keyboard.
  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByRole('checkbox', { name: 'agent' }).check();
  await chat.getByRole('textbox', { name: 'Message' }).fill(`On it ${tag}`);
  await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect.poll(() => chatsToAgent.find((c) => c.text === `On it ${tag}`)?.to).toEqual(['agent']);
  await expect(chat.getByRole('textbox', { name: 'Message' })).toHaveValue('');
});

test('the envelope log filters, expands, jumps along correlation chains and exports JSONL', async ({ page }) => {
  const tag = tagged();
  agent = await connectParticipant('agent');
  await openControlRoom(page);
  const log = page.getByRole('region', { name: 'Envelope log' });
  const rows = log.getByRole('list', { name: 'Envelopes' }).getByRole('listitem');

  const question = agent.chat.send(`question ${tag}`);
  agent.telemetry.report();
  agent.chat.send(`answer ${tag}`, undefined, { correlationId: [question.id] });
  agent.chat.send(`orphan ${tag}`, undefined, { correlationId: [`never-seen-${tag}`] });
  await expect(rows.filter({ hasText: `orphan ${tag}` })).toBeVisible();

  await log.getByLabel('Kind prefix').fill('chat');
  await expect(rows.filter({ hasText: 'participant/status' })).toHaveCount(0);
  await expect(rows.filter({ hasText: `question ${tag}` })).toBeVisible();
  await log.getByLabel('Search').fill(tag);
  await expect(rows).toHaveCount(3);

  const answer = rows.filter({ hasText: `answer ${tag}` });
  await answer.getByRole('button', { name: new RegExp(`answer ${tag}`) }).click();
  await expect(answer.locator('pre')).toContainText(`"correlation_id": [`);
  await expect(answer.locator('pre')).toContainText(question.id);

  await answer.getByRole('button', { name: `Jump to parent envelope ${question.id}` }).click();
  const parentToggle = rows.filter({ hasText: `question ${tag}` }).getByRole('button', { name: new RegExp(`question ${tag}`) });
  await expect(parentToggle).toBeFocused();
  await expect(log.getByText(/^Jumped to chat /)).toBeVisible();

  await rows
    .filter({ hasText: `orphan ${tag}` })
    .getByRole('button', { name: `Jump to parent envelope never-seen-${tag}` })
    .click();
  await expect(log.getByText(/is not in the log: it was never seen here/)).toBeVisible();

  const download = page.waitForEvent('download');
  await log.getByRole('button', { name: 'Export JSONL' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^mew-e2e-.*\.jsonl$/);
  const lines = (await readFile(await file.path(), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.map((e) => e.payload.text)).toEqual([`question ${tag}`, `answer ${tag}`, `orphan ${tag}`]);
});

/** Whether the log row holding `text` is inside the log's scroll box's visible area (the page may scroll too). */
async function shownInLog(log: Locator, text: string): Promise<boolean> {
  const row = log.getByRole('list', { name: 'Envelopes' }).getByText(text);
  if ((await row.count()) === 0) return false;
  return row.evaluate((el) => {
    const box = el.closest('[role="list"]')!.parentElement!.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  });
}

test('the envelope log follows the newest envelopes, holds still once the reader scrolls up, and jumps back', async ({ page }) => {
  const tag = tagged();
  agent = await connectParticipant('agent');
  await openControlRoom(page);
  const log = page.getByRole('region', { name: 'Envelope log' });
  for (let i = 0; i < 60; i++) agent.chat.send(`fill ${tag} ${i}`);
  await expect.poll(() => shownInLog(log, `fill ${tag} 59`)).toBe(true);
  const jump = log.getByRole('button', { name: /^Jump to newest/ });
  await expect(jump).toHaveCount(0);

  // The scroll box, not the list inside it (as tall as all its rows).
  await log.getByRole('list', { name: 'Envelopes' }).locator('xpath=..').hover();
  await page.mouse.wheel(0, -1500);
  await expect(jump).toBeVisible();
  await expect.poll(() => shownInLog(log, `fill ${tag} 59`)).toBe(false);
  // While the reader is up there, new envelopes are counted, not slid in under them.
  agent.chat.send(`later ${tag}`);
  await expect(jump).toHaveText(/\(\d+ new\)/);
  await expect(log.getByText(`later ${tag}`)).toHaveCount(0);

  await jump.click();
  await expect.poll(() => shownInLog(log, `later ${tag}`)).toBe(true);
  await expect(jump).toHaveCount(0);
  agent.chat.send(`after ${tag}`);
  await expect.poll(() => shownInLog(log, `after ${tag}`)).toBe(true);
});

test('a gateway refusal of my own envelope surfaces as an error toast', async ({ page }) => {
  await openControlRoom(page);
  const chat = page.getByRole('region', { name: 'Chat' });
  // Over the gateway's 1 MiB frame limit: refused with system/error message_too_large, addressed to me.
  await chat.getByRole('textbox', { name: 'Message' }).fill('x'.repeat(1_100_000));
  await chat.getByRole('button', { name: 'Send' }).click();
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Refused by the gateway: message_too_large' });
  await expect(toast).toBeVisible();
  await expect(toast).toContainText('exceeds the limit of 1048576 bytes');

  // After a reload the history catch-up replays that error into the store, but it is not toasted again.
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.getByRole('region', { name: 'Envelope log' }).getByLabel('Kind prefix').fill('system/error');
  await expect(
    page
      .getByRole('list', { name: 'Envelopes' })
      .getByText(/message_too_large/)
      .first(),
  ).toBeVisible();
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: 'message_too_large' })).toHaveCount(0);
});

test('the watchers panels render live data at desktop and phone widths', async ({ page }, testInfo) => {
  const tag = tagged();
  agent = await connectParticipant('agent', { telemetry: { maxTokens: 20_000 } });
  await page.setViewportSize({ width: 1280, height: 1600 });
  await openControlRoom(page);
  for (const [tokens, messages, latencyMs] of [
    [2_000, 4, 420],
    [6_500, 11, 380],
    [9_800, 19, 510],
    [14_200, 28, 290],
    [16_900, 33, 610],
  ]) {
    agent.telemetry.record({ tokens, messages, latencyMs });
    agent.telemetry.report();
  }
  const done = agent.reasoning.start({ message: `Summarising the diff ${tag}` });
  done.thought('Three files changed');
  done.conclude('Safe to merge');
  const live = agent.reasoning.start({ message: `Checking config.yaml ${tag}` });
  live.thought('The file is YAML; validating syntax first');
  live.thought('Found a duplicated key under server:');
  agent.chat.send(`Can I rewrite config.yaml? ${tag}`, 'human');
  agent.chat.send('Status: 2 of 3 checks passed');
  await page.getByRole('region', { name: 'Chat' }).getByRole('textbox', { name: 'Message' }).fill('Go ahead with the rewrite');
  await page.getByRole('region', { name: 'Chat' }).getByRole('textbox', { name: 'Message' }).press('Enter');

  await page.getByRole('region', { name: 'Telemetry' }).getByLabel('Participant').selectOption('agent');
  await expect(page.getByRole('region', { name: 'Telemetry' }).getByText('16,900 / 20,000')).toBeVisible();
  const reasoning = page.getByRole('region', { name: 'Reasoning' });
  await reasoning.getByRole('button', { name: new RegExp(`Checking config.yaml ${tag}`) }).click();
  await expect(reasoning.getByText('Found a duplicated key under server:')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Messages' }).getByText('Go ahead with the rewrite')).toBeVisible();
  const log = page.getByRole('region', { name: 'Envelope log' });
  await log.getByRole('list', { name: 'Envelopes' }).getByRole('listitem').last().getByRole('button').first().click();
  await page.screenshot({ path: testInfo.outputPath('watch-1280.png'), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('region', { name: 'Telemetry' })).toBeVisible();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: testInfo.outputPath('watch-390.png'), fullPage: true });
});
