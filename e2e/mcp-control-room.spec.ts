import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test, type Page } from '@playwright/test';
import { connectParticipant, E2E_PORT, E2E_TOKENS, signInUrl } from './fixtures/space';

// The control room's side of MCP both ways (#26): an MCP client (the official SDK's, as Claude Code or Cursor would
// be) joins /mcp/e2e as `coder` and asks a human with space__ask_human; the question shows in Chromium with a reply
// box, in the space's chat and in the cross-space inbox, and the answer typed there is the tool's result. And
// "Connect an MCP client…" on a participant's card gives the URL and a freshly issued token an MCP client joins with.

const MCP_URL = `http://127.0.0.1:${E2E_PORT}/mcp/e2e`;

interface McpSession {
  client: Client;
  close(): Promise<void>;
}

async function connectMcp(token: string): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'e2e-mcp-control-room', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

const chat = (page: Page) => page.getByRole('region', { name: 'Chat' });

let coder: McpSession;
let u: string;

test.beforeEach(async () => {
  u = Date.now().toString(36);
  coder = await connectMcp(E2E_TOKENS.coder);
});

test.afterEach(async () => {
  await coder.close();
});

test('a question an MCP client asks shows in the chat with a reply box, and the answer typed there is the tool’s result', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const { tools } = await coder.client.listTools();
  expect(tools.map((t) => t.name)).toContain('space__ask_human');

  const call = coder.client.callTool({ name: 'space__ask_human', arguments: { question: `Which branch should I deploy, ${u}?` } });
  const question = chat(page)
    .getByRole('article', { name: /^Question from coder/ })
    .filter({ hasText: u });
  await expect(question).toBeVisible();
  await question.getByRole('textbox', { name: 'Answer to coder' }).fill(`release-${u}`);
  await question.getByRole('button', { name: 'Send answer' }).click();

  expect(await call).toEqual({ content: [{ type: 'text', text: `human: release-${u}` }], structuredContent: { answer: `release-${u}`, from: 'human' } });
  // Answered, it leaves the questions for me; in the conversation it reads as answered.
  await expect(question).toHaveCount(0);
  const row = chat(page)
    .getByRole('listitem')
    .filter({ hasText: `Which branch should I deploy, ${u}?` });
  await expect(row.getByText(`answered by you: release-${u}`)).toBeVisible();
});

test('open questions wait in the cross-space inbox beside proposals; answered or dismissed there, or withdrawn by their asker', async ({ page }) => {
  // Signing in keeps the sign-in in this browser: the inbox on / connects with it.
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.goto('/');
  const questions = page.getByRole('list', { name: 'Questions' });

  const controller = new AbortController();
  const withdrawn = coder.client.callTool({ name: 'space__ask_human', arguments: { question: `Never mind this one, ${u}` } }, undefined, {
    signal: controller.signal,
  });
  const dismissed = coder.client.callTool({ name: 'space__ask_human', arguments: { question: `Not for me, ${u}` } }, undefined, {
    signal: controller.signal,
  });
  const asked = coder.client.callTool({ name: 'space__ask_human', arguments: { question: `Run the migration, ${u}?` } });
  const toWithdraw = questions.getByRole('article').filter({ hasText: `Never mind this one, ${u}` });
  const toAnswer = questions.getByRole('listitem').filter({ hasText: `Run the migration, ${u}?` });
  await expect(toWithdraw).toBeVisible();
  await expect(toAnswer).toBeVisible();
  await expect(toAnswer.getByText('e2e', { exact: true })).toBeVisible();

  // Dismissed, a question leaves my list alone: its asker still waits.
  const toDismiss = questions.getByRole('article').filter({ hasText: `Not for me, ${u}` });
  await toDismiss.getByRole('button', { name: 'Dismiss' }).click();
  await expect(toDismiss).toHaveCount(0);

  // The client cancels its call: the question is withdrawn (its chat/cancel, which coder may send for this journey
  // only: e2e-space.yaml gives it chat alone) and leaves the inbox.
  const human = await connectParticipant('human', { autoDiscovery: false });
  const grant = human.operate.grant({ recipient: 'coder', capabilities: [{ kind: 'chat/cancel' }], reason: 'e2e: withdraw its questions' });
  try {
    await grant.accepted;
    controller.abort();
    await expect(withdrawn).rejects.toThrow();
    await expect(dismissed).rejects.toThrow();
    await expect(toWithdraw).toHaveCount(0);
  } finally {
    await human.operate.revoke({ recipient: 'coder', grant_id: grant.envelope.id }).accepted;
    human.disconnect();
  }

  const box = toAnswer.getByRole('textbox', { name: 'Answer to coder' });
  await box.fill(`yes, ${u}`);
  await box.press('Enter');
  expect(await asked).toMatchObject({ content: [{ type: 'text', text: `human: yes, ${u}` }] });
  await expect(toAnswer).toHaveCount(0);
});

test('“Connect an MCP client…” gives the URL and a token issued once, with which an MCP client lists its tools', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'coder', exact: true });
  const open = card.getByRole('button', { name: 'Connect an MCP client…' });
  await open.click();
  const dialog = page.getByRole('dialog', { name: 'Connect an MCP client as coder' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'MCP server URL' })).toHaveValue(MCP_URL);
  // Escape closes it, and focus goes back to the button that opened it.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(open).toBeFocused();

  await open.click();
  await dialog.getByRole('textbox', { name: /Label/ }).fill(`e2e ${u}`);
  await dialog.getByRole('button', { name: 'Issue a token for coder' }).click();
  const tokenField = dialog.getByRole('textbox', { name: 'Token' });
  await expect(tokenField).toHaveValue(/^[A-Za-z0-9_-]{43}$/);
  const token = await tokenField.inputValue();
  await expect(dialog.getByRole('button', { name: 'Copy token' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Copy token' }).click();
  await expect(dialog.getByText('Copied')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  // Each client's setup carries the URL and the token.
  await dialog.getByRole('radio', { name: 'Cursor' }).check();
  await expect(dialog.getByLabel('Cursor ~/.cursor/mcp.json')).toContainText(`"Authorization": "Bearer ${token}"`);
  await expect(dialog.getByRole('button', { name: 'Copy Cursor ~/.cursor/mcp.json' })).toBeVisible();

  const issued = await connectMcp(token);
  try {
    const { tools } = await issued.client.listTools();
    expect(tools.map((t) => t.name)).toContain('space__ask_human');
  } finally {
    await issued.close();
  }
  const audit = await fetch(`http://127.0.0.1:${E2E_PORT}/api/spaces/e2e/audit?type=TOKEN_ISSUED&order=desc&limit=1`, {
    headers: { Authorization: `Bearer ${E2E_TOKENS.human}` },
  });
  expect((await audit.json()).events[0]).toMatchObject({ actor: 'human', subject: 'coder', details: { label: `e2e ${u}` } });
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
});

test('the card shows the MCP client joined as its participant, and an operator’s End session ends it', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'coder', exact: true });
  const line = card.getByRole('list', { name: 'MCP sessions of coder' }).getByRole('listitem').filter({ hasText: 'MCP: e2e-mcp-control-room 1.0.0' });
  await expect(line).toHaveCount(1);
  await expect(line).toContainText(/active (just now|\d+s ago)/);

  await line.getByRole('button', { name: 'End session of e2e-mcp-control-room 1.0.0' }).click();
  const dialog = page.getByRole('dialog', { name: 'End the MCP session of e2e-mcp-control-room 1.0.0?' });
  await dialog.getByRole('button', { name: 'End session' }).click();
  await expect(line).toHaveCount(0);
  // Its client is told the session is gone (404) at its next request.
  await expect(coder.client.listTools()).rejects.toThrow();
  const audit = await fetch(`http://127.0.0.1:${E2E_PORT}/api/spaces/e2e/audit?type=MCP_SESSION_ENDED&order=desc&limit=1`, {
    headers: { Authorization: `Bearer ${E2E_TOKENS.human}` },
  });
  expect((await audit.json()).events[0]).toMatchObject({ actor: 'human', subject: 'coder', details: { client: 'e2e-mcp-control-room' } });
});
