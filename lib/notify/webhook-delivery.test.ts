import { afterEach, describe, expect, it } from 'vitest';
import { tokenOf } from '../gateway/testing';
import { startNotifyFixture, type NotifyFixture } from './notify-fixture';

/** A retry schedule short enough for a test; the doubling is the product's. */
const FAST_RETRY = { firstRetryMs: 20 };

describe('webhooks', () => {
  let fx: NotifyFixture;
  afterEach(() => fx?.close());

  async function addWebhook(url: string, format: 'json' | 'slack') {
    const res = await fx.api('/api/spaces/notify/webhooks', { method: 'POST', token: tokenOf('lead'), body: { url, format } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { webhook: { id: string } }).webhook.id;
  }
  const deliveries = async (id: string) =>
    ((await (await fx.api(`/api/spaces/notify/webhooks/${id}/deliveries`, { token: tokenOf('lead') })).json()) as { deliveries: Record<string, unknown>[] })
      .deliveries;

  it('retries a receiver that fails twice with growing waits, and logs every attempt', async () => {
    fx = await startNotifyFixture({ notify: { webhookRetry: FAST_RETRY }, statuses: (_path, n) => (n <= 2 ? 503 : 200) });
    const id = await addWebhook(fx.receiver.url('/hook'), 'json');
    const proposal = await fx.propose('read_note', { path: 'notes/a.md' });
    const bodies = await Promise.all([1, 2, 3].map(() => fx.receiver.next('/hook')));
    expect(new Set(bodies.map((b) => b.body.toString())).size).toBe(1); // the same event each time
    expect(JSON.parse(bodies[0].body.toString())).toMatchObject({
      event: 'proposal.pending',
      space: 'notify',
      proposal: {
        id: proposal,
        proposer: 'agent',
        targets: ['tools'],
        method: 'tools/call',
        tool: 'read_note',
        arguments: { path: 'notes/a.md' },
        risk: { risk_level: 'safe' },
      },
      url: `${fx.gw.httpUrl('/spaces/notify')}#proposal=${proposal}`,
    });
    await fx.idle();

    const log = (await deliveries(id)).reverse();
    expect(log.map(({ event, attempt, status, error }) => ({ event, attempt, status, error }))).toEqual([
      { event: 'proposal.pending', attempt: 1, status: 503, error: 'HTTP 503' },
      { event: 'proposal.pending', attempt: 2, status: 503, error: 'HTTP 503' },
      { event: 'proposal.pending', attempt: 3, status: 200, error: null },
    ]);
    const wait = (entry: Record<string, unknown>) => Date.parse(entry.next_retry_at as string) - Date.parse(entry.at as string);
    expect([wait(log[0]), wait(log[1])]).toEqual([20, 40]);
    expect(log[2].next_retry_at).toBeNull();
    const listed = (await (await fx.api('/api/spaces/notify/webhooks', { token: tokenOf('lead') })).json()) as { webhooks: { last_delivery: unknown }[] };
    expect(listed.webhooks[0].last_delivery).toMatchObject({ attempt: 3, status: 200 });
  });

  it('does not retry a client error other than 408/429, and tells outcomes in Slack format', async () => {
    fx = await startNotifyFixture({ notify: { webhookRetry: FAST_RETRY }, statuses: (path) => (path === '/refuses' ? 400 : 200) });
    const refusing = await addWebhook(fx.receiver.url('/refuses'), 'json');
    await addWebhook(fx.receiver.url('/slack'), 'slack');
    const proposal = await fx.propose('read_note');
    fx.agent.send({ kind: 'mcp/withdraw', correlation_id: [proposal], payload: {} });
    const pending = JSON.parse((await fx.receiver.next('/slack')).body.toString());
    expect(pending.text).toBe('agent proposes read_note in notify (safe)');
    expect(pending.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn', text: '*agent proposes read_note*\npath: "notes/a.md"' } });
    expect(JSON.parse((await fx.receiver.next('/slack')).body.toString()).text).toBe('agent proposes read_note: withdrawn by agent in notify (safe)');
    await fx.idle();
    expect((await deliveries(refusing)).map((d) => [d.event, d.attempt, d.status, d.next_retry_at])).toEqual([
      ['proposal.withdrawn', 1, 400, null],
      ['proposal.pending', 1, 400, null],
    ]);
  });

  it('sends a marked test through the delivery path on request, logs it, and answers with the attempt (operators only)', async () => {
    fx = await startNotifyFixture({ statuses: (path) => (path === '/down' ? 500 : 204) });
    const up = await addWebhook(fx.receiver.url('/up'), 'json');
    const test = (id: string, token = tokenOf('lead')) => fx.api(`/api/spaces/notify/webhooks/${id}/test`, { method: 'POST', token });

    const answer = await test(up);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ delivery: { webhook_id: up, event: 'webhook.test', proposal_id: '', attempt: 1, status: 204, error: null } });
    expect(JSON.parse((await fx.receiver.next('/up')).body.toString())).toMatchObject({
      event: 'webhook.test',
      test: true,
      space: 'notify',
      by: 'lead',
      message: expect.stringContaining('[Test]'),
      url: fx.gw.httpUrl('/spaces/notify'),
    });
    expect((await deliveries(up)).map((d) => [d.event, d.status])).toEqual([['webhook.test', 204]]);
    expect((await test(up, tokenOf('viewer'))).status).toBe(401);
    expect((await test('no-such-webhook')).status).toBe(404);
    expect((await fx.api(`/api/spaces/notify/webhooks/${up}/test`, { token: tokenOf('lead') })).status).toBe(405);
  });

  it('flags a webhook whose latest attempt failed, and tells the operators once when it turns failing', async () => {
    fx = await startNotifyFixture({ statuses: (path, n) => (path === '/flaky' && n <= 2 ? 500 : 200) });
    const id = await addWebhook(fx.receiver.url('/flaky'), 'slack');
    const listed = async () =>
      ((await (await fx.api('/api/spaces/notify/webhooks', { token: tokenOf('lead') })).json()) as { webhooks: { failing: boolean }[] }).webhooks[0];
    expect(await listed()).toMatchObject({ failing: false, last_delivery: null });

    const first = (await (await fx.api(`/api/spaces/notify/webhooks/${id}/test`, { method: 'POST', token: tokenOf('lead') })).json()) as { delivery: unknown };
    expect(first.delivery).toMatchObject({ status: 500, error: 'HTTP 500', next_retry_at: null });
    expect(JSON.parse((await fx.receiver.next('/flaky')).body.toString()).text).toMatch(/^\[Test\] MEW Dashboard/);
    expect(await listed()).toMatchObject({ failing: true });
    const told = await fx.lead.next((f) => f.kind === 'system/security-event');
    expect(told).toMatchObject({
      to: ['lead'],
      payload: { offender: expect.stringMatching(/^webhook http:\/\/127\.0\.0\.1:\d+\//), error: 'webhook_failing' },
    });
    expect(told.payload.message).toBe('delivery of webhook.test failed: HTTP 500');

    await fx.api(`/api/spaces/notify/webhooks/${id}/test`, { method: 'POST', token: tokenOf('lead') }); // fails again: not told again
    await fx.api(`/api/spaces/notify/webhooks/${id}/test`, { method: 'POST', token: tokenOf('lead') });
    expect(await listed()).toMatchObject({ failing: false, last_delivery: { status: 200 } });
    expect(fx.lead.received.filter((f) => f.kind === 'system/security-event')).toEqual([]);
  });
});
