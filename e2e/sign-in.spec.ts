import { expect, test } from '@playwright/test';
import { E2E_TOKENS, signInUrl } from './fixtures/space';

test('the printed sign-in URL stores the token in this browser and drops it from the address bar', async ({ page }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page.getByRole('button', { name: 'Signed in as human' })).toBeVisible();
  expect(page.url()).not.toContain(E2E_TOKENS.human);
  expect(page.url()).toMatch(/\/spaces\/e2e$/);
  await page.reload(); // the browser remembers the token
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
});

test('the sign-in form accepts a space and a token', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Space' }).fill('e2e');
  await page.getByRole('textbox', { name: 'Token' }).fill(E2E_TOKENS.human);
  await page.getByRole('button', { name: 'Open control room' }).click();
  await expect(page).toHaveURL(/\/spaces\/e2e$/);
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
});

test('a space without a token sends the user to sign in', async ({ page }) => {
  await page.goto('/spaces/e2e');
  await expect(page).toHaveURL(/\/\?space=e2e$/);
  await expect(page.getByRole('textbox', { name: 'Space' })).toHaveValue('e2e');
});

test('a wrong token is refused with the sign-in form and its reason, not kept, and nothing is kept in its place', async ({ page }) => {
  await page.goto('/spaces/e2e#token=not-a-real-token-000000000');
  await expect(page.getByRole('heading', { name: 'Sign in to e2e' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'The gateway refused this token for e2e' })).toContainText('unknown or was revoked');
  // No sign-in of this browser to fall back on.
  await expect(page.getByRole('button', { name: 'Continue with the sign-in kept in this browser' })).toHaveCount(0);
  expect(await page.evaluate(() => window.localStorage.getItem('mew.token.e2e'))).toBeNull();
  // Signing in again from here with the right token works.
  await page.getByRole('textbox', { name: 'Token' }).fill(E2E_TOKENS.human);
  await page.getByRole('button', { name: 'Open control room' }).click();
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  expect(await page.evaluate(() => window.localStorage.getItem('mew.token.e2e'))).toBe(E2E_TOKENS.human);
});

test('the control room fits a phone-width screen without sideways scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page.getByRole('region', { name: /Proposals/ })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
