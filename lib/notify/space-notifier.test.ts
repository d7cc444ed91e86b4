import { afterEach, describe, expect, it } from 'vitest';
import { tokenOf } from '../gateway/testing';
import { startNotifyFixture, type NotifyFixture } from './notify-fixture';
import { decryptPush } from './testing';

describe('push notifications of proposals', () => {
  let fx: NotifyFixture;
  afterEach(() => fx?.close());

  it('sends a new proposal to each subscribed participant who could decide it, with signed actions, and replaces it with the outcome', async () => {
    fx = await startNotifyFixture();
    const lead = await fx.subscribe('lead');
    await fx.subscribe('viewer');
    const id = await fx.propose('read_note', { path: 'notes/a.md' });

    const request = await fx.receiver.next('/push/lead');
    expect(request.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '900', urgency: 'normal' });
    expect(request.headers.authorization).toMatch(/^vapid t=.+, k=.+$/);
    const push = decryptPush(request, lead);
    expect(push).toMatchObject({
      title: 'agent proposes read_note',
      url: `/spaces/notify#proposal=${id}`,
      tag: id,
      actions: [
        { action: 'approve', title: 'Approve' },
        { action: 'reject', title: 'Reject' },
      ],
    });
    expect(push.body).toBe('notify · safe · path: "notes/a.md"');
    expect(push.action_urls?.approve).toMatch(new RegExp(`^/api/spaces/notify/proposals/${id}/actions/approve\\?t=`));

    fx.agent.send({ kind: 'mcp/withdraw', correlation_id: [id], payload: { reason: 'no_longer_needed' } });
    const outcome = decryptPush(await fx.receiver.next('/push/lead'), lead);
    expect(outcome).toEqual({
      title: 'read_note withdrawn by agent (no_longer_needed)',
      body: 'notify · proposed by agent',
      url: `/spaces/notify#proposal=${id}`,
      tag: id,
    });
    await fx.idle();
    // The viewer may only chat: it cannot decide, so its device hears nothing.
    expect(fx.receiver.received.filter((r) => r.path === '/push/viewer')).toEqual([]);
  });

  it('offers no Approve for a dangerous tool: the notification opens the page; the push is urgent', async () => {
    fx = await startNotifyFixture();
    const lead = await fx.subscribe('lead');
    await fx.propose('delete_note');
    const request = await fx.receiver.next('/push/lead');
    expect(request.headers.urgency).toBe('high');
    const push = decryptPush(request, lead);
    expect(push.body).toContain('dangerous, confirm first');
    expect(push.actions).toEqual([{ action: 'reject', title: 'Reject' }]);
    expect(Object.keys(push.action_urls ?? {})).toEqual(['reject']);
  });

  it('forgets a subscription the push service says is gone', async () => {
    fx = await startNotifyFixture({ statuses: (path) => (path === '/push/lead' ? 410 : 201) });
    await fx.subscribe('lead');
    await fx.propose('read_note');
    await fx.receiver.next('/push/lead');
    await fx.idle();
    const listed = await fx.api('/api/spaces/notify/push/subscriptions', { token: tokenOf('lead') });
    expect(await listed.json()).toEqual({ subscriptions: [] });
  });

  it('lists a device whose pushes fail as failing until one goes through, and tells the operators once', async () => {
    let down = true;
    fx = await startNotifyFixture({ statuses: (path) => (path === '/push/lead' && down ? 503 : 201) });
    await fx.subscribe('lead');
    const mine = async () =>
      ((await (await fx.api('/api/spaces/notify/push/subscriptions', { token: tokenOf('lead') })).json()) as { subscriptions: { failing: unknown }[] })
        .subscriptions[0];
    expect(await mine()).toMatchObject({ failing: null });

    const first = await fx.propose('read_note');
    await fx.idle();
    expect(await mine()).toMatchObject({ failing: { error: 'HTTP 503', failures: 1, at: expect.any(String) } });
    expect(await fx.lead.next((f) => f.kind === 'system/security-event')).toMatchObject({
      payload: { offender: 'push to a device of lead', error: 'push_failing', message: 'pushes to this device fail: HTTP 503' },
    });
    fx.agent.send({ kind: 'mcp/withdraw', correlation_id: [first], payload: {} });
    await fx.propose('read_note');
    await fx.idle();
    expect(await mine()).toMatchObject({ failing: { failures: 3 } }); // the withdrawal's push, and the new proposal's
    expect(fx.lead.received.filter((f) => f.kind === 'system/security-event')).toEqual([]);

    down = false;
    await fx.propose('read_note');
    await fx.idle();
    expect(await mine()).toMatchObject({ failing: null });
  });
});
