import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test, type Page } from '@playwright/test';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectParticipant, E2E_PORT, E2E_TOKENS, signInUrl } from './fixtures/space';

// An MCP client (the official SDK's, as Claude Code or Cursor would be) joins the e2e space at /mcp/e2e as `coder`,
// a participant that may only propose: its call waits for the human in Chromium, and the decision reaches it.

const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

let tools: MEWParticipant;
let client: Client;
let transport: StreamableHTTPClientTransport;
let u: string;

test.beforeEach(async () => {
  u = Date.now().toString(36);
  tools = await connectParticipant('tools', { autoDiscovery: false });
  tools.tools.register({
    name: `deploy_${u}`,
    description: 'Deploys a branch',
    inputSchema: { type: 'object', properties: { branch: { type: 'string' } }, required: ['branch'] },
    security: { risk_level: 'moderate' },
    execute: ({ branch }) => `Deployed ${String(branch)}`,
  });
  transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${E2E_PORT}/mcp/e2e`), {
    requestInit: { headers: { Authorization: `Bearer ${E2E_TOKENS.coder}` } },
  });
  client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
  await client.connect(transport);
});

test.afterEach(async () => {
  await transport.terminateSession().catch(() => undefined);
  await client.close();
  tools.disconnect();
});

test('an MCP client’s call waits for approval in the control room, and the tool’s result reaches the client', async ({ page }) => {
  const { tools: listed } = await client.listTools();
  expect(listed.map((t) => t.name)).toContain(`tools__deploy_${u}`);
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');

  const call = client.callTool({ name: `tools__deploy_${u}`, arguments: { branch: `release-${u}` } });
  const card = queue(page)
    .getByRole('article', { name: `deploy_${u}` })
    .filter({ hasText: `release-${u}` });
  await expect(card).toBeVisible();
  await expect(card.getByText('coder', { exact: true })).toBeVisible();
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  expect(await call).toEqual({ content: [{ type: 'text', text: `Deployed release-${u}` }] });
  await expect(card.getByText('completed', { exact: true })).toBeVisible();
});

test('a rejection reaches the MCP client as an error result with its explanation', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await client.listTools();
  const call = client.callTool({ name: `tools__deploy_${u}`, arguments: { branch: `friday-${u}` } });
  const card = queue(page)
    .getByRole('article', { name: `deploy_${u}` })
    .filter({ hasText: `friday-${u}` });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Reject' }).click();
  const dialog = page.getByRole('dialog', { name: `Reject deploy_${u}` });
  await dialog.getByRole('radio', { name: 'Unsafe' }).check();
  await dialog.getByRole('textbox', { name: /Explanation/ }).fill('No deploys on Friday.');
  await dialog.getByRole('button', { name: 'Reject' }).click();
  expect(await call).toEqual({ isError: true, content: [{ type: 'text', text: 'Rejected by human (unsafe): No deploys on Friday.' }] });
});
