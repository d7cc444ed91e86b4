import { execSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { demoToken } from './fixtures/space';

/** The URL the server prints at start: the demo space, signed in as the human, token in the fragment. */
const printedUrl = () => `/spaces/demo#token=${demoToken('human')}`;

const card = (page: Page, id: string) => page.getByRole('article', { name: new RegExp(`^${id}\\b`) });

test.describe('the embedded demo space', () => {
  test.setTimeout(90_000);

  test('shows the four participants, a pending scribe proposal, reasoning and gauges; an approved write lands in the sandbox through the real filesystem server', async ({
    page,
  }) => {
    await page.goto(printedUrl());
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    for (const id of ['human', 'files', 'scribe', 'auditor']) await expect(card(page, id)).toBeVisible();
    await expect(card(page, 'scribe').getByText('Online')).toBeVisible();

    const pending = page.locator('[data-proposal-id]').filter({ hasText: 'write_file' }).filter({ hasText: 'scribe' }).filter({ hasText: 'pending' }).first();
    await expect(pending).toBeVisible({ timeout: 30_000 });
    // Pinned by id: the scribe keeps proposing, and "the first pending one" moves on once this one is decided.
    const proposal = page.locator(`[data-proposal-id="${await pending.getAttribute('data-proposal-id')}"]`);
    await expect(
      page
        .getByRole('region', { name: /Reasoning/ })
        .getByText('scribe')
        .first(),
    ).toBeVisible();
    await expect(page.getByRole('meter').first()).toBeVisible();

    const path = /"path":\s*"([^"]+)"/.exec((await proposal.textContent()) ?? '')?.[1];
    expect(path).toBeTruthy();
    // The real filesystem server marks write_file destructive: approving it takes a confirmation.
    await expect(proposal.getByText('risk: dangerous')).toBeVisible();
    await proposal.getByRole('button', { name: 'Approve', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Run write_file?' });
    await confirm.getByRole('button', { name: /^(Run|Approve|Confirm)/ }).click();
    await expect(proposal.getByText(/completed/i).first()).toBeVisible({ timeout: 15_000 });
    await expect(card(page, 'files').getByText(/ready: \d+ tools from secure-filesystem-server/)).toBeVisible();
    // The auditor lists the notes directory on its own schedule and comments on the newest note it finds.
    await expect(
      page
        .getByRole('region', { name: 'Chat' })
        .getByText(new RegExp(`Audit of ${path!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
        .first(),
    ).toBeVisible({ timeout: 40_000 });
  });

  test('a killed demo agent is restarted, and the control room shows it leave and rejoin', async ({ page }) => {
    await page.goto(printedUrl());
    const auditor = card(page, 'auditor');
    await expect(auditor.getByText('Online')).toBeVisible();
    // The bracket keeps pkill from matching (and killing) the shell that runs it.
    execSync(`pkill -KILL -f "run-agen[t].ts auditor"`);
    await expect(auditor.getByText(/Offline/)).toBeVisible({ timeout: 10_000 });
    await expect(auditor.getByText('Online')).toBeVisible({ timeout: 30_000 });
  });
});
