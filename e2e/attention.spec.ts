import { expect, test, type Page } from '@playwright/test';
import { ProposalRejectedError } from '../lib/sdk/sdk-errors';
import type { MEWParticipant } from '../lib/sdk/mew-participant';
import { connectToolAndAgent, demoToken, signInUrl, type ToolAndAgent } from './fixtures/space';

// Supervision away from the queue: the tab's title counts what waits, a hidden tab notifies, and the home page is
// one inbox across every space this browser signed in to.

let run: ToolAndAgent;
let u: string;
let tool: string;
let agent: MEWParticipant;

test.beforeEach(async () => {
  run = await connectToolAndAgent('inbox');
  ({ u, tool, agent } = run);
});

test.afterEach(() => run.disconnect());

const propose = (path: string) => run.propose(path);
const pendingInTitle = async (page: Page) => Number(/^\((\d+)\) /.exec(await page.title())?.[1] ?? 0);

test('the title and the favicon count the proposals waiting, and a hidden tab shows a notification for each new one', async ({ page, context }) => {
  await context.grantPermissions(['notifications']);
  // Record what the page asks the browser to show (headless Chromium draws no system notifications).
  await page.addInitScript(() => {
    const shown: { title: string; body?: string; tag?: string }[] = [];
    (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
    const Real = window.Notification;
    window.Notification = class extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body, tag: options?.tag });
      }
    } as typeof Notification;
  });
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page).toHaveTitle(/e2e · MEW Dashboard$/);
  const before = await pendingInTitle(page);

  await page.getByRole('button', { name: 'Notify me' }).click();
  await expect(page.getByRole('button', { name: 'Notifying' })).toHaveAttribute('aria-pressed', 'true');
  // The tab goes to the background.
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const waiting = propose(`notes/${u}.md`).catch((e: Error) => e);
  await expect.poll(() => pendingInTitle(page)).toBe(before + 1);
  await expect(page.locator('link[rel="icon"][data-badge]')).toHaveAttribute('href', /^data:image\/png/);
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { shownNotifications: { title: string; body?: string }[] }).shownNotifications))
    .toEqual([{ title: `agent proposes ${tool}`, body: 'risk: moderate · to tools', tag: expect.any(String) }]);

  const card = page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: tool });
  await card.getByRole('button', { name: 'Reject' }).click();
  await page
    .getByRole('dialog', { name: `Reject ${tool}` })
    .getByRole('button', { name: 'Reject' })
    .click();
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
  await expect.poll(() => pendingInTitle(page)).toBe(before);
});

test('the home page lists each signed-in space with what waits there, and its combined queue decides a proposal of each', async ({ page }) => {
  // Sign this browser in to two spaces, as the printed URLs do.
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.goto(signInUrl('demo', demoToken('human')));
  await expect(page.getByTestId('connection-status')).toHaveText('Live');

  const approved = propose(`notes/${u}-inbox.md`);
  await page.goto('/');
  const spaces = page.getByRole('region', { name: 'Your spaces' });
  for (const space of ['demo', 'e2e']) {
    const row = spaces.getByRole('listitem', { name: `Space ${space}` });
    await expect(row.getByTestId('connection-status')).toHaveText('Live');
    await expect(row).toContainText(/\d+ pending/);
  }
  await expect(spaces.getByRole('listitem', { name: 'Space e2e' })).toContainText(/oldest waiting/);

  const queue = page.getByRole('region', { name: /Everything waiting/ });
  const ours = queue.getByRole('article', { name: tool });
  await ours.click();
  await page.keyboard.press('a');
  expect(await approved).toMatchObject({ content: [{ text: `Wrote notes/${u}-inbox.md` }] });
  await expect(ours).toBeHidden();

  // The demo's scribe keeps proposing notes: one of them, from the same queue.
  const scribe = queue.getByRole('article').filter({ hasText: 'scribe' }).first();
  await expect(scribe).toBeVisible({ timeout: 20_000 });
  const id = await scribe.getAttribute('data-proposal-id');
  await scribe.getByRole('button', { name: 'Reject' }).click();
  await page
    .getByRole('dialog', { name: /^Reject / })
    .getByRole('button', { name: 'Reject' })
    .click();
  await expect(queue.locator(`[data-proposal-id="${id}"]`)).toBeHidden();
});

test('on a phone a pending card fits the width: long arguments fold, and Approve and Reject come first, within reach', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const long = Array.from({ length: 60 }, (_, i) => `line ${i} of a long note`).join('\n');
  const waiting = agent
    .mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { path: `notes/${u}-phone.md`, content: long } } }, 30_000)
    .catch((e: Error) => e);
  const card = page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: tool });
  await card.scrollIntoViewIfNeeded();
  const box = (await card.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  const unfold = card.getByRole('button', { name: 'Show all the arguments' });
  await expect(unfold).toHaveAttribute('aria-expanded', 'false');
  const decide = card.getByRole('group', { name: `Decide on ${tool}` });
  const [approve, reject] = [decide.getByRole('button', { name: 'Approve', exact: true }), decide.getByRole('button', { name: 'Reject' })];
  await expect(approve).toBeInViewport();
  await expect(reject).toBeInViewport();
  // Side by side on the first row of the decisions.
  const [a, r] = [(await approve.boundingBox())!, (await reject.boundingBox())!];
  expect(Math.abs(a.y - r.y)).toBeLessThan(2);
  expect(a.height).toBeGreaterThanOrEqual(44);

  await unfold.click();
  await expect(card.getByRole('button', { name: 'Fold the arguments' })).toHaveAttribute('aria-expanded', 'true');
  await reject.click();
  await page
    .getByRole('dialog', { name: `Reject ${tool}` })
    .getByRole('button', { name: 'Reject' })
    .click();
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
});

test('a desktop and a phone signed in as the same participant both stay live, both see a new proposal, and a decision on one clears the other', async ({
  browser,
}) => {
  const desktop = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
  for (const page of [desktop, phone]) {
    await page.goto(signInUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
  }
  const approved = propose(`notes/${u}-two-devices.md`);
  const cardOn = (page: Page) => page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: tool });
  await expect(cardOn(desktop).getByText('pending', { exact: true })).toBeVisible();
  await expect(cardOn(phone).getByText('pending', { exact: true })).toBeVisible();

  await cardOn(phone).getByRole('button', { name: 'Approve', exact: true }).click();
  expect(await approved).toMatchObject({ content: [{ text: `Wrote notes/${u}-two-devices.md` }] });
  // On the desktop it leaves the pending queue within a second, for the history.
  await expect(cardOn(desktop).getByText('completed', { exact: true })).toBeVisible({ timeout: 1_000 });
  await expect(cardOn(desktop).getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  // Both are still connected: neither replaced the other.
  for (const page of [desktop, phone]) await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await Promise.all([desktop.context().close(), phone.context().close()]);
});
