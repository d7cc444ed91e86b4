import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { connectToolAndAgent, signInUrl, type ToolAndAgent } from './fixtures/space';

// axe-core (WCAG 2.0/2.1 A and AA rules) on the three pages people land on, at a desktop and a phone width: the
// control room with a proposal waiting, the home page's inbox, and the sign-in page (fresh, and after a refused
// token). No serious or critical violation may remain; the report names each rule and where it failed.

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

let run: ToolAndAgent;
let proposal: Promise<unknown>;
test.beforeAll(async () => {
  run = await connectToolAndAgent('a11y_tool');
  // One proposal waits through every check, so the room is checked with its busiest part on screen.
  proposal = run.propose(`notes/${run.u}.md`, 120_000).catch(() => undefined);
});
test.afterAll(async () => {
  run.disconnect();
  await proposal;
});

for (const size of WIDTHS) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('the control room has no serious or critical accessibility violation', async ({ page }) => {
      await page.goto(signInUrl());
      await expect(page.getByTestId('connection-status')).toHaveText('Live');
      await expect(page.locator('[data-proposal-id]').filter({ hasText: run.tool })).toBeVisible();
      await expect(page.getByRole('article', { name: 'agent' }).getByText('Online')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('the home inbox has no serious or critical accessibility violation', async ({ page }) => {
      await page.goto(signInUrl());
      await expect(page.getByTestId('connection-status')).toHaveText('Live');
      await page.goto('/');
      await expect(page.getByRole('heading', { name: /^Everything waiting/ })).toBeVisible();
      await expect(page.locator('[data-proposal-id]').filter({ hasText: run.tool })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('the sign-in page has no serious or critical accessibility violation, fresh or after a refused token', async ({ page }) => {
      await page.goto('/');
      await expect(page.getByRole('heading', { name: 'Sign in to a space' })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);

      await page.goto(signInUrl('e2e', 'not-a-token-of-this-space-000'));
      await expect(page.getByRole('heading', { name: 'Sign in to e2e' })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
}

test('a skip link is the first Tab stop and leads to the proposal waiting', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const card = page.locator('[data-proposal-id]').filter({ hasText: run.tool });
  await expect(card).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the proposal queue' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  // The oldest proposal waiting (another journey's may be older): focus is in the queue, on a card.
  await expect(page.locator('[data-proposal-id]:focus')).toHaveCount(1);
  await expect(page.getByRole('region', { name: /^Proposals/ }).locator(':focus')).toHaveCount(1);
});

test('the envelope log and the audit log read in one order, oldest first, and “Newest first” flips both', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  const log = page.getByRole('region', { name: 'Envelope log' });
  const times = log.getByRole('list', { name: 'Envelopes' }).locator('time');
  const ordered = async () => {
    const all = await times.evaluateAll((els) => els.map((el) => Date.parse(el.getAttribute('datetime') ?? '')));
    return { first: all[0], last: all.at(-1) ?? all[0] };
  };
  const toggle = log.getByRole('button', { name: 'Newest first' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(times.nth(1)).toBeAttached();
  const ascending = await ordered();
  expect(ascending.first).toBeLessThanOrEqual(ascending.last);

  await page.getByRole('button', { name: 'Audit log', exact: true }).click();
  const audit = page.getByRole('dialog', { name: 'Audit log' });
  await expect(audit.getByRole('status')).toContainText('oldest first, newest at the bottom');
  await audit.getByRole('button', { name: 'Newest first' }).click();
  await expect(audit.getByRole('status')).toContainText('newest first');
  await page.keyboard.press('Escape');
  await expect(audit).toBeHidden();

  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect
    .poll(async () => {
      const { first, last } = await ordered();
      return first >= last;
    })
    .toBe(true);
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
});
