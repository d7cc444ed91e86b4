import { expect, test, type APIRequestContext } from '@playwright/test';
import { maskedUrl } from '../lib/protocol';
import { ProposalRejectedError } from '../lib/sdk/sdk-errors';
import { decryptPush, startReceiver, testSubscriber, type TestReceiver } from '../lib/notify/testing';
import { connectToolAndAgent, E2E_TOKENS, signInUrl, type ToolAndAgent } from './fixtures/space';

// Notifications you can act on: a push for a new proposal reaches the page's service worker (headless Chromium has
// no push service, so the test is the push service and hands the push over with the DevTools protocol), and an
// operator's webhook receives proposals, its deliveries shown in the Webhooks dialog.

const AUTH = { Authorization: `Bearer ${E2E_TOKENS.human}` };

let run: ToolAndAgent;
let receiver: TestReceiver;
let u: string;
let tool: string;

test.beforeEach(async () => {
  receiver = await startReceiver();
  run = await connectToolAndAgent('notify');
  ({ u, tool } = run);
});

test.afterEach(async () => {
  run.disconnect();
  await receiver.close();
});

const propose = (path: string) => run.propose(path, 20_000);

/** The human lists the tools' tools (over HTTP), so the gateway knows this run's tool and its risk before the proposal. */
async function discoverTools(request: APIRequestContext) {
  const sent = await request.post('/participants/human/messages?space=e2e', {
    headers: AUTH,
    data: { kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id: u, method: 'tools/list' } },
  });
  const { id } = (await sent.json()) as { id: string };
  await expect
    .poll(async () => {
      const { messages } = (await (await request.get('/participants/human/messages?space=e2e&after=0', { headers: AUTH })).json()) as {
        messages: { kind: string; correlation_id?: string[] }[];
      };
      return messages.some((m) => m.kind === 'mcp/response' && m.correlation_id?.includes(id));
    })
    .toBe(true);
}

test('a push for a new proposal reaches the service worker, which shows it with Approve and Reject; Approve works from it', async ({
  page,
  context,
  request,
  baseURL,
}) => {
  await context.grantPermissions(['notifications']);
  const device = testSubscriber();
  const subscription = device.subscription(receiver.url(`/push/${u}`));
  expect((await request.post('/api/spaces/e2e/push/subscriptions', { headers: AUTH, data: subscription })).status()).toBe(201);

  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const r of updated) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  // This browser has no push service: the toggle says so rather than pretending.
  await page.getByRole('button', { name: 'Push to this device' }).click();
  await expect(page.getByText('Push not turned on')).toBeVisible();
  await expect(page.getByText(/this browser has no push service available/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Push to this device' })).toHaveAttribute('aria-pressed', 'false');

  await discoverTools(request);
  const path = `notes/${u}.md`;
  const done = propose(path);
  const push = decryptPush(await receiver.next(`/push/${u}`), device);
  expect(push).toMatchObject({
    title: `agent proposes ${tool}`,
    tag: expect.any(String),
    actions: [
      { action: 'approve', title: 'Approve' },
      { action: 'reject', title: 'Reject' },
    ],
  });
  expect(push.body).toContain('e2e · moderate');

  const origin = new URL(baseURL!).origin;
  await expect.poll(() => registrations.get(`${origin}/`)).toBeTruthy();
  // A push that reaches a worker still starting up can be lost, as with a real push service: hand it over again
  // until it shows (the same tag replaces, so it never shows twice).
  await expect
    .poll(
      async () => {
        await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registrations.get(`${origin}/`)!, data: JSON.stringify(push) });
        return page.evaluate(async (tag) => {
          const shown = await (await navigator.serviceWorker.ready).getNotifications({ tag });
          return shown.map((n) => ({
            title: n.title,
            actions: (n as Notification & { actions: { action: string; title: string }[] }).actions.map((a) => a.title),
          }));
        }, push.tag);
      },
      { timeout: 15_000 },
    )
    .toEqual([{ title: `agent proposes ${tool}`, actions: ['Approve', 'Reject'] }]);

  // What the service worker does for an Approve click: POST the signed link, no bearer.
  const approved = await request.post(push.action_urls!.approve!);
  expect(await approved.json()).toEqual({ ok: true, message: `Approved ${tool} for agent` });
  expect(await done).toMatchObject({ content: [{ text: `Wrote ${path}` }] });
  expect((await request.post(push.action_urls!.approve!)).status()).toBe(409);

  await request.delete('/api/spaces/e2e/push/subscriptions', { headers: AUTH, data: { endpoint: subscription.endpoint } });
});

test('the Webhooks dialog adds a webhook pointing at a receiver and shows its successful delivery', async ({ page, request }) => {
  await page.goto(signInUrl());
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await page.getByRole('button', { name: 'Webhooks' }).click();
  const dialog = page.getByRole('dialog', { name: 'Webhooks' });
  await dialog.getByLabel('Webhook URL').fill(receiver.url(`/hook/${u}`));
  await dialog.getByLabel('Format').selectOption('json');
  await dialog.getByRole('button', { name: 'Add webhook' }).click();
  const row = dialog.getByRole('listitem', { name: `Webhook ${maskedUrl(receiver.url(`/hook/${u}`))}` });
  await expect(row).toContainText('Latest delivery: none yet');

  const waiting = propose(`notes/${u}-hook.md`).catch((e: Error) => e);
  const delivered = JSON.parse((await receiver.next(`/hook/${u}`)).body.toString());
  expect(delivered).toMatchObject({
    event: 'proposal.pending',
    space: 'e2e',
    proposal: { proposer: 'agent', tool, arguments: { path: `notes/${u}-hook.md` } },
  });
  await expect(row).toContainText('Latest delivery: proposal.pending · attempt 1 · HTTP 201');
  await row.getByRole('button', { name: 'Deliveries' }).click();
  await expect(row.getByRole('list', { name: 'Delivery log' })).toContainText('proposal.pending · attempt 1 · HTTP 201');

  await row.getByRole('button', { name: /^Remove webhook/ }).click();
  await expect(row).toBeHidden();
  await request.post('/participants/human/messages?space=e2e', {
    headers: AUTH,
    data: { kind: 'mcp/reject', to: ['agent'], correlation_id: [delivered.proposal.id], payload: { reason: 'disagree' } },
  });
  expect(await waiting).toBeInstanceOf(ProposalRejectedError);
});
