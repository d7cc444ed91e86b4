import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { maskedUrl } from '../lib/protocol';
import { startReceiver, type TestReceiver } from '../lib/notify/testing';
import { E2E_TOKENS, signInUrl } from './fixtures/space';

// Operator trust (#27): signing in recovers from a mistyped token without losing the sign-in that works and without
// hammering the gateway; sign out is in the header's user menu and says it was done; a failing webhook is flagged in
// the header and the security feed, and "Send test" says what the receiver answered; a phone's header is one row.

const AUTH = { Authorization: `Bearer ${E2E_TOKENS.human}` };
const BAD_TOKEN = 'e2e-human-token-00000000o1'; // one character off
const savedToken = (page: Page) => page.evaluate(() => window.localStorage.getItem('mew.token.e2e'));

/** AUTH_FAILED rows of the e2e space audited since `since` (the audit API, as an operator). */
async function authFailures(request: APIRequestContext, since: string): Promise<number> {
  const answer = await request.get(`/api/spaces/e2e/audit?type=AUTH_FAILED&since=${encodeURIComponent(since)}&limit=500`, { headers: AUTH });
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { events: unknown[] }).events.length;
}

test('a refused token shows the sign-in form with the reason, keeps the sign-in that works, and is tried at most twice', async ({ page, request }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  expect(await savedToken(page)).toBe(E2E_TOKENS.human);

  const since = new Date(Date.now() - 1000).toISOString();
  await page.goto('/');
  await page.goto(signInUrl('e2e', BAD_TOKEN));
  await expect(page.getByRole('heading', { name: 'Sign in to e2e' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'The gateway refused this token for e2e' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Token' })).toBeFocused();
  // Not an empty-looking control room, and the token is out of the address bar.
  await expect(page.getByRole('region', { name: /Proposals/ })).toHaveCount(0);
  expect(page.url()).not.toContain(BAD_TOKEN);
  expect(await savedToken(page)).toBe(E2E_TOKENS.human);

  // The page retried every second or two before: watch it for a while, then count what the gateway audited.
  await expect.poll(() => authFailures(request, since)).toBeGreaterThanOrEqual(1);
  await page.waitForTimeout(5_000);
  expect(await authFailures(request, since)).toBeLessThanOrEqual(2);

  await page.getByRole('button', { name: 'Continue with the sign-in kept in this browser' }).click();
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page.getByRole('button', { name: 'Signed in as human' })).toBeVisible();
});

test('a mistyped token in the sign-in form on the home page replaces nothing: the home page still lists the space, live', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Space' }).fill('e2e');
  await page.getByRole('textbox', { name: 'Token' }).fill(BAD_TOKEN);
  await page.getByRole('button', { name: 'Open control room' }).click();
  await expect(page).toHaveURL(/\/spaces\/e2e$/);
  await expect(page.getByRole('alert').filter({ hasText: 'The gateway refused this token for e2e' })).toBeVisible();
  expect(await savedToken(page)).toBe(E2E_TOKENS.human);

  await page.goto('/');
  const space = page.getByRole('listitem', { name: 'Space e2e' });
  await expect(space.getByTestId('connection-status')).toHaveText('Live');
});

test('sign out is in the header’s user menu; it forgets the sign-in and says so', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.getByRole('button', { name: 'Signed in as human' }).click();
  await page.getByRole('menuitem', { name: 'Sign out of e2e' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText('Signed out of e2e')).toBeVisible();
  expect(await savedToken(page)).toBeNull();
  await page.goto('/spaces/e2e');
  await expect(page).toHaveURL(/\/\?space=e2e$/);
});

test.describe('alert health', () => {
  let receiver: TestReceiver;
  let u: string;
  test.beforeEach(async () => {
    u = Date.now().toString(36);
    receiver = await startReceiver((path) => (path.startsWith('/down/') ? 500 : 204));
  });
  test.afterEach(async ({ request }) => {
    // Webhooks persist in the server's data: remove this run's, so no other journey posts to a closed receiver.
    const { webhooks } = (await (await request.get('/api/spaces/e2e/webhooks', { headers: AUTH })).json()) as { webhooks: { id: string; url: string }[] };
    for (const w of webhooks.filter((w) => w.url.startsWith(new URL(receiver.url('/')).origin))) {
      await request.delete(`/api/spaces/e2e/webhooks/${w.id}`, { headers: AUTH });
    }
    await receiver.close();
  });

  test('Send test posts a marked test and says what the receiver answered; a failing webhook is flagged in the header and the security feed', async ({
    page,
  }) => {
    await page.goto(signInUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    const header = page.getByRole('banner');
    await header.getByRole('button', { name: /^Webhooks/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhooks' });

    // Masked URLs end with the path's last four characters: these two differ there.
    for (const path of [`/up/${u}/okay`, `/down/${u}/fail`]) {
      await dialog.getByLabel('Webhook URL').fill(receiver.url(path));
      await dialog.getByRole('button', { name: 'Add webhook' }).click();
      await expect(dialog.getByRole('listitem', { name: `Webhook ${maskedUrl(receiver.url(path))}` })).toContainText('Latest delivery: none yet');
    }
    const up = dialog.getByRole('listitem', { name: `Webhook ${maskedUrl(receiver.url(`/up/${u}/okay`))}` });
    const down = dialog.getByRole('listitem', { name: `Webhook ${maskedUrl(receiver.url(`/down/${u}/fail`))}` });

    await up.getByRole('button', { name: /^Send a test/ }).click();
    await expect(up.getByRole('status')).toHaveText(/^Test delivered: HTTP 204 at \d\d:\d\d:\d\d$/);
    expect(JSON.parse((await receiver.next(`/up/${u}/okay`)).body.toString())).toMatchObject({ event: 'webhook.test', test: true, space: 'e2e', by: 'human' });
    await expect(up).toContainText('Latest delivery: webhook.test · attempt 1 · HTTP 204');

    await down.getByRole('button', { name: /^Send a test/ }).click();
    await expect(down.getByRole('status')).toHaveText(/^Test failed: HTTP 500 at \d\d:\d\d:\d\d$/);
    await expect(down).toContainText('failing');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // The header says it without opening anything, and the operator's security feed has the event.
    await expect(header.getByRole('button', { name: /^Webhooks/ })).toContainText('1 webhook failing');
    await expect(page.getByRole('list', { name: 'Refusals' })).toContainText('webhook_failing');

    // Removed, nothing fails any more.
    await header.getByRole('button', { name: /^Webhooks/ }).click();
    await down.getByRole('button', { name: /^Remove webhook/ }).click();
    await expect(page.getByText('Webhook removed')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(header.getByRole('button', { name: /^Webhooks/ })).not.toContainText('failing');
  });
});

test('on a phone the header is one row, without Ctrl K; its buttons and Sign out are in the user menu', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const header = page.getByRole('banner');
  expect((await header.boundingBox())!.height).toBeLessThan(56);
  await expect(header.getByText('Ctrl K')).toBeHidden();
  await header.getByRole('button', { name: /^Signed in as human/ }).click();
  const menu = page.getByRole('menu');
  for (const item of ['Commands', /^Notif/, /^Push/, /^Webhooks/, 'Audit log', 'All spaces', 'Sign out of e2e']) {
    await expect(menu.getByRole('menuitem', { name: item })).toBeVisible();
  }
  await menu.getByRole('menuitem', { name: /^Webhooks/ }).click();
  await expect(page.getByRole('dialog', { name: 'Webhooks' })).toBeVisible();
});
