import { expect, test } from '@playwright/test';
import type { McpOAuthList, McpOAuthReport } from '../lib/protocol';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { E2E_PORT, signInUrl } from './fixtures/space';

// An OAuth-protected MCP server (the SDK's server auth; playwright.config starts it) is put into the `oauth` space by
// a launched bridge (e2e/mcp-oauth-space.yaml). It answers 401 with its authorization metadata, so the bridge's card
// asks for Connect; the operator connects it in Chromium (authorization code with PKCE in a new window, approved at
// once by the test server), the bridge comes back with the token the server holds, and its tools are callable.

const SPACE = 'oauth';
const HUMAN = 'e2e-oauth-human-token-00000001';

const api = (path: string, method = 'GET') =>
  fetch(`http://127.0.0.1:${E2E_PORT}/api/spaces/${SPACE}${path}`, { method, headers: { Authorization: `Bearer ${HUMAN}` } });
const cloudOAuth = async (): Promise<McpOAuthReport | undefined> =>
  ((await (await api('/oauth')).json()) as McpOAuthList).connections.find((connection) => connection.participant === 'cloud');

test.beforeEach(async () => {
  // A data directory kept from an earlier run may still hold its tokens: Connect is what must connect it here.
  if ((await cloudOAuth())?.state === 'connected') await api('/processes/cloud/oauth', 'DELETE');
  await expect.poll(async () => (await cloudOAuth())?.state, { timeout: 20_000 }).toBe('authorization_required');
});

test('an operator connects an OAuth-protected MCP server from its card, its tool becomes callable, and Disconnect takes it back', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto(signInUrl(SPACE, HUMAN));
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.getByRole('article', { name: 'cloud' });
  const oauth = card.getByRole('group', { name: 'OAuth of cloud' });
  await expect(oauth).toContainText('authorization needed');
  await expect(oauth).toContainText(`http://127.0.0.1:${E2E_PORT + 2}/mcp`);

  // Connect opens the authorization page in a new window; the server's callback page says so, and closes itself.
  const opened = page.waitForEvent('popup');
  await oauth.getByRole('button', { name: 'Connect cloud' }).click();
  const popup = await opened;
  const closed = popup.waitForEvent('close', { timeout: 15_000 });
  await expect(popup.getByRole('heading', { name: 'Connected' })).toBeVisible();
  await expect(popup.getByText('cloud is connected to')).toBeVisible();
  await closed;

  // The card: connected, with its scope, and Disconnect; the bridge came back ready with the server's tools.
  await expect(oauth).toContainText('mcp:tools');
  await expect(oauth.getByRole('button', { name: 'Disconnect cloud' })).toBeVisible();
  await expect(card).toContainText('ready: 2 tools from oauth-test-server', { timeout: 20_000 });
  const report = await cloudOAuth();
  expect(report).toMatchObject({ state: 'connected', scopes: ['mcp:tools'], refreshable: true, connected_by: 'human' });
  expect(JSON.stringify(report)).not.toMatch(/at-|rt-/);

  const caller = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: SPACE, token: HUMAN, autoDiscovery: false });
  await caller.connect();
  try {
    const answer = (await caller.mcpRequest(
      'cloud',
      { method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello over OAuth' } } },
      15_000,
    )) as {
      content: { text: string }[];
    };
    expect(answer.content[0].text).toBe('Echo: hello over OAuth');
  } finally {
    caller.disconnect();
  }

  // Disconnect: the tokens are forgotten, the bridge restarts without one, and the card asks for Connect again.
  await oauth.getByRole('button', { name: 'Disconnect cloud' }).click();
  await expect(oauth.getByRole('button', { name: 'Connect cloud' })).toBeVisible({ timeout: 20_000 });
  await expect(oauth).toContainText('authorization needed');
});
