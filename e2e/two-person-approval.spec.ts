import { expect, test, type Page } from '@playwright/test';
import { connectParticipant, E2E_PORT, signInUrl } from './fixtures/space';
import { MEWParticipant } from '../lib/sdk/mew-participant';

// Two-person approval (issue #29): the e2e space asks two distinct approvers for `two_person_*` tools
// (`approvals: {tools: {"two_person_*": 2}}` in e2e/e2e-space.yaml). Two humans, each signed in in a browser context of
// their own: the first one's approval (even sent twice) runs nothing and shows "1 of 2 approvals" on both screens; the
// second one's runs the tool exactly once.

/** The second human of e2e/e2e-space.yaml. */
const REVIEWER_TOKEN = 'e2e-reviewer-token-000000006';

// Parallel runs on one machine each clear test-results/, so screenshots can be sent elsewhere.
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? 'test-results';

const queue = (page: Page) => page.getByRole('region', { name: 'Proposals' });

async function openControlRoom(page: Page, token?: string) {
  await page.goto(signInUrl('e2e', token));
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(queue(page)).toBeVisible();
}

test('one approver, twice, does not run a two-person tool; a second distinct one runs it exactly once', async ({ page, browser }) => {
  const u = Date.now().toString(36);
  const tool = `two_person_${u}`;
  const calls: { from: string; path: unknown }[] = [];
  const tools = new MEWParticipant({ gateway: `ws://127.0.0.1:${E2E_PORT}/ws`, space: 'e2e', token: 'e2e-tools-token-0000000002', autoDiscovery: false });
  tools.tools.register({
    name: tool,
    description: 'Deletes a release (needs two people)',
    security: { risk_level: 'dangerous', confirmation_required: true },
    execute: ({ path }, context) => (calls.push({ from: context.from, path }), `Deleted ${String(path)}`),
  });
  await tools.connect();
  const agent = await connectParticipant('agent', { autoDiscovery: false });
  const reviewerContext = await browser.newContext();
  const reviewerPage = await reviewerContext.newPage();
  try {
    await openControlRoom(page);
    await openControlRoom(reviewerPage, REVIEWER_TOKEN);
    const result = agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { path: `release-${u}` } } }, 25_000);
    result.catch(() => undefined); // awaited below; a failure before that must not go unhandled
    const humanCard = queue(page).getByRole('article', { name: tool });
    const reviewerCard = queue(reviewerPage).getByRole('article', { name: tool });
    await expect(humanCard).toBeVisible();
    await expect(reviewerCard).toBeVisible();

    // The human approves (a dangerous tool: confirmed first). Nothing runs; everyone sees "1 of 2 approvals: human".
    await humanCard.getByRole('button', { name: 'Approve', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: `Run ${tool}?` });
    await confirm.getByRole('button', { name: `Run ${tool}` }).click();
    await expect(humanCard.getByTestId('approval-count')).toHaveText('1 of 2 approvals: human');
    await expect(reviewerCard.getByTestId('approval-count')).toHaveText('1 of 2 approvals: human');
    await expect(page.getByText('Approval recorded: 1 of 2')).toBeVisible();
    await expect(humanCard.getByText('pending', { exact: true })).toBeVisible();
    // Approving again is not offered to the same human, and sent anyway (as a client may) it still runs nothing.
    await expect(humanCard.getByRole('button', { name: 'Approve', exact: true })).toBeDisabled();
    await expect(humanCard.getByText(/Cannot approve: you already approved it \(1 of 2\)/)).toBeVisible();
    await humanCard.screenshot({ path: `${SCREENSHOT_DIR}/two-person-approval.png` });
    const human = await connectParticipant('human', { autoDiscovery: false, catchUp: 'retained' });
    try {
      const proposalId = human.proposals.pending().find((p) => p.toolName === tool)?.id;
      expect(proposalId).toBeDefined();
      const told: string[] = [];
      human.client.on('message', (e) => void (e.kind === 'system/approval' && told.push(JSON.stringify(e.payload))));
      const again = human.send({
        kind: 'mcp/request',
        to: ['tools'],
        correlation_id: [proposalId!],
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: { path: `release-${u}` } } },
      });
      await expect.poll(() => told.find((t) => t.includes(again.id))).toBeDefined();
      expect(JSON.parse(told.find((t) => t.includes(again.id))!)).toMatchObject({ complete: false, approvals: [{ by: 'human' }] });
    } finally {
      human.disconnect();
    }
    expect(calls).toEqual([]);
    await expect(reviewerCard.getByTestId('approval-count')).toHaveText('1 of 2 approvals: human');

    // The reviewer approves the same call: the tool runs, once, and both screens show it carried out.
    await reviewerCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await reviewerPage
      .getByRole('dialog', { name: `Run ${tool}?` })
      .getByRole('button', { name: `Run ${tool}` })
      .click();
    await expect(reviewerCard.getByLabel('Result')).toHaveText(`Deleted release-${u}`);
    await expect(humanCard.getByLabel('Result')).toHaveText(`Deleted release-${u}`);
    await expect(humanCard.getByTestId('approval-count')).toHaveText('2 of 2 approvals: human, reviewer');
    expect(await result).toMatchObject({ content: [{ type: 'text', text: `Deleted release-${u}` }] });
    expect(calls).toEqual([{ from: 'reviewer', path: `release-${u}` }]);
  } finally {
    agent.disconnect();
    tools.disconnect();
    await reviewerContext.close();
  }
});
