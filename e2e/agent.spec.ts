import { expect, test, type Page } from '@playwright/test';
import { ScriptedOpenAiServer } from '../lib/sdk/agent/testing/scripted-openai-server';
import { demoToken, E2E_PORT } from './fixtures/space';

/** The demo's assistant is a real MEWAgent; its model is this scripted server, on the port the server's config names. */
let model: ScriptedOpenAiServer;
test.beforeAll(async () => {
  model = await ScriptedOpenAiServer.start(E2E_PORT + 1);
});
test.afterAll(() => model.close());

const card = (page: Page, id: string) => page.getByRole('article', { name: new RegExp(`^${id}\\b`) });

test('the assistant proposes a bridged tool; its risk shows, and approving it in the browser lets the agent finish its answer', async ({ page }) => {
  test.setTimeout(90_000);
  const u = Date.now().toString(36);
  const path = `notes/agent-${u}.md`;
  model.reply(
    { content: 'I will write the note.', toolCalls: [{ name: 'files__write_file', arguments: { path, content: `# Agent note ${u}\n` } }] },
    { content: `Done: I wrote ${path}.` },
  );

  await page.goto(`/spaces/demo#token=${demoToken('human')}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(card(page, 'assistant').getByText('Online')).toBeVisible({ timeout: 30_000 });
  await expect(card(page, 'assistant').getByRole('group', { name: 'Process of assistant' }).getByText('running', { exact: true })).toBeVisible();

  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByRole('textbox', { name: 'Message' }).fill(`@assistant please write a note called ${path}`);
  await chat.getByRole('button', { name: 'Send' }).click();

  // The agent may not call write_file: it proposes, and the proposal carries the risk the bridge read off the real server.
  const proposal = page.locator('[data-proposal-id]').filter({ hasText: 'write_file' }).filter({ hasText: 'assistant' }).filter({ hasText: path });
  await expect(proposal).toBeVisible({ timeout: 30_000 });
  await expect(proposal.getByText('risk: dangerous')).toBeVisible();
  // The control room asked the real server for the current file: there is none, so it is shown as new.
  await expect(proposal.getByText(/^New file: notes\/agent-\w+\.md does not exist on files yet\.$/)).toBeVisible();
  await proposal.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('dialog', { name: 'Run write_file?' }).getByRole('button', { name: /^Run/ }).click();
  await expect(proposal.getByText(/completed/i).first()).toBeVisible({ timeout: 15_000 });

  // The tool's result went back to the model, whose answer reaches the chat.
  await expect(chat.getByRole('list', { name: 'Messages' }).getByText(`Done: I wrote ${path}.`)).toBeVisible({ timeout: 30_000 });
  const second = await model.request(1);
  expect(JSON.stringify(second.body.messages)).toContain(`Successfully wrote to ${path}`);
});

test('an operator stops and starts a launched participant from its card', async ({ page }) => {
  await page.goto(`/spaces/demo#token=${demoToken('human')}`);
  const auditor = card(page, 'auditor');
  const process = auditor.getByRole('group', { name: 'Process of auditor' });
  await expect(process.getByText('running', { exact: true })).toBeVisible({ timeout: 30_000 });
  await process.getByRole('button', { name: 'stop auditor' }).click();
  // Stopping loses the agent's working memory: it asks once, saying so.
  await page.getByRole('dialog', { name: 'Stop auditor?' }).getByRole('button', { name: 'Stop' }).click();
  await expect(process.getByText('stopped', { exact: true })).toBeVisible();
  await expect(auditor.getByText(/Offline/)).toBeVisible({ timeout: 10_000 });
  await process.getByRole('button', { name: 'start auditor' }).click();
  await expect(process.getByText('running', { exact: true })).toBeVisible({ timeout: 10_000 });
  await expect(auditor.getByText('Online')).toBeVisible({ timeout: 30_000 });
});
