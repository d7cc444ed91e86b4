import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testSubscriber } from '../notify/testing';
import { gatewaysOn, spaceConfig, tokenOf, type TestGateway } from './testing';

const config = spaceConfig('alerts', { lead: [{ kind: '*' }], agent: [{ kind: 'mcp/proposal' }, { kind: 'chat' }] });

describe('notification endpoints', () => {
  const { start, stop, closeAll } = gatewaysOn(config);
  afterEach(closeAll);
  const call = (gw: TestGateway, path: string, token?: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(gw.httpUrl(path), {
      method: init.method ?? 'GET',
      headers: { ...(token && { Authorization: `Bearer ${token}` }), 'Content-Type': 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });

  it('mints the VAPID keys once, into the data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-push-'));
    const first = await start(dataDir);
    const { publicKey } = (await (await call(first, '/api/push/public-key')).json()) as { publicKey: string };
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65); // an uncompressed P-256 point
    await stop(first);
    const again = await start(dataDir);
    expect(await (await call(again, '/api/push/public-key')).json()).toEqual({ publicKey });
  });

  it('keeps each participant’s own push subscriptions, refusing bad input and unknown tokens', async () => {
    const gw = await start();
    const path = '/api/spaces/alerts/push/subscriptions';
    const device = testSubscriber().subscription('https://push.example.com/send/abc');
    expect((await call(gw, path, tokenOf('lead'), { method: 'POST', body: device })).status).toBe(201);
    expect((await call(gw, path, tokenOf('agent'), { method: 'POST', body: testSubscriber().subscription('http://127.0.0.1:9/push') })).status).toBe(201);
    const mine = await (await call(gw, path, tokenOf('lead'))).json();
    expect(mine).toEqual({ subscriptions: [{ endpoint: device.endpoint, created_at: expect.any(String), failing: null }] });

    const plainHttp = await call(gw, path, tokenOf('lead'), { method: 'POST', body: { ...device, endpoint: 'http://push.example.com/x' } });
    expect(plainHttp.status).toBe(400);
    expect(await plainHttp.json()).toMatchObject({
      error: 'invalid_subscription',
      issues: [{ path: ['endpoint'], message: expect.stringContaining('https') }],
    });
    const noKeys = await call(gw, path, tokenOf('lead'), { method: 'POST', body: { endpoint: device.endpoint } });
    expect(await noKeys.json()).toMatchObject({ error: 'invalid_subscription', issues: [{ path: ['keys'] }] });
    const notJson = await fetch(gw.httpUrl(path), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
      body: '{',
    });
    expect([notJson.status, (await notJson.json()).error]).toEqual([400, 'invalid_json']);
    expect((await call(gw, path, 'nobody-token-0123456789')).status).toBe(401);
    expect((await call(gw, path)).status).toBe(401);

    // One's own only: the agent cannot remove the lead's device.
    expect((await call(gw, path, tokenOf('agent'), { method: 'DELETE', body: { endpoint: device.endpoint } })).status).toBe(404);
    expect(await (await call(gw, path, tokenOf('lead'), { method: 'DELETE', body: { endpoint: device.endpoint } })).json()).toEqual({
      deleted: device.endpoint,
    });
    expect(await (await call(gw, path, tokenOf('lead'))).json()).toEqual({ subscriptions: [] });
  });

  it('lets operators only manage webhooks, audited with the URL masked', async () => {
    const gw = await start();
    const path = '/api/spaces/alerts/webhooks';
    const hook = { url: 'https://hooks.example.com/services/T000/B000/secret-part', format: 'slack' };
    const denied = await call(gw, path, tokenOf('agent'), { method: 'POST', body: hook });
    expect([denied.status, (await denied.json()).error]).toEqual([401, 'invalid_token']);
    expect((await call(gw, path, tokenOf('agent'))).status).toBe(401);

    const bad = await call(gw, path, tokenOf('lead'), { method: 'POST', body: { url: 'ftp://x', format: 'xml' } });
    expect(await bad.json()).toMatchObject({ error: 'invalid_webhook', issues: [{ path: ['url'] }, { path: ['format'] }] });

    const added = await call(gw, path, tokenOf('lead'), { method: 'POST', body: hook });
    const { webhook } = (await added.json()) as { webhook: { id: string; url: string } };
    expect(webhook).toMatchObject({ url: 'https://hooks.example.com/…part', format: 'slack', created_by: 'lead', last_delivery: null });
    expect((await call(gw, `${path}/${webhook.id}/deliveries`, tokenOf('agent'))).status).toBe(401);
    expect(await (await call(gw, `${path}/${webhook.id}/deliveries`, tokenOf('lead'))).json()).toEqual({ deliveries: [] });
    expect((await call(gw, `${path}/${webhook.id}`, tokenOf('agent'), { method: 'DELETE' })).status).toBe(401);
    expect(await (await call(gw, `${path}/${webhook.id}`, tokenOf('lead'), { method: 'DELETE' })).json()).toEqual({ deleted: webhook.id });
    expect((await call(gw, `${path}/${webhook.id}`, tokenOf('lead'), { method: 'DELETE' })).status).toBe(404);

    const audited = gw.audit.query({ space: 'alerts', type: ['WEBHOOK_ADDED', 'WEBHOOK_REMOVED'] });
    expect(audited.map((e) => [e.type, e.actor, e.details.url])).toEqual([
      ['WEBHOOK_ADDED', 'lead', webhook.url],
      ['WEBHOOK_REMOVED', 'lead', webhook.url],
    ]);
    expect(JSON.stringify(audited)).not.toContain('secret-part');
  });
});
