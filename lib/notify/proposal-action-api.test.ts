import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../gateway/persistence/gateway-database';
import { ACTION_TOKEN_TTL_MS, ActionTokens } from './action-token';
import { proposalContentHash } from './proposal-content-hash';
import { NOTIFY_TEST_TOOLS, startNotifyFixture, type NotifyFixture } from './notify-fixture';
import { decryptPush, startReceiver, type TestSubscriber } from './testing';

describe('acting on a proposal from a notification', () => {
  const open: NotifyFixture[] = [];
  afterEach(async () => {
    for (const fx of open.splice(0)) await fx.close();
  });
  let clock = Date.parse('2026-01-01T00:00:00Z');
  async function start(options: Parameters<typeof startNotifyFixture>[0] = {}) {
    const fx = await startNotifyFixture({ notify: { now: () => clock }, ...options });
    open.push(fx);
    return fx;
  }
  /** The action URLs of the next push to the lead's device. */
  async function actionUrls(fx: NotifyFixture, device: TestSubscriber) {
    return decryptPush(await fx.receiver.next('/push/lead'), device).action_urls ?? {};
  }
  const post = (fx: NotifyFixture, url: string | undefined) => fx.api(url!, { method: 'POST' });
  async function refusal(res: Response) {
    return [res.status, ((await res.json()) as { error: string }).error];
  }

  it('approves once, as the participant it was sent to, through the gateway: a fulfilling request, audited; the replay is refused', async () => {
    const fx = await start();
    const device = await fx.subscribe('lead');
    const id = await fx.propose('read_note', { path: 'notes/a.md' });
    const urls = await actionUrls(fx, device);

    const approved = await post(fx, urls.approve);
    expect([approved.status, await approved.json()]).toEqual([200, { ok: true, message: 'Approved read_note for agent' }]);
    const request = await fx.tools.next((f) => f.kind === 'mcp/request' && f.correlation_id?.[0] === id);
    expect(request).toMatchObject({
      from: 'lead',
      to: ['tools'],
      payload: { method: 'tools/call', params: { name: 'read_note', arguments: { path: 'notes/a.md' } } },
    });
    expect(fx.gw.audit.query({ space: 'notify', type: 'PROPOSAL_FULFILLED' })).toEqual([
      expect.objectContaining({ actor: 'lead', details: expect.objectContaining({ trace_id: id }) }),
    ]);

    expect(await refusal(await post(fx, urls.approve))).toEqual([409, 'action_token_used']);
    // Its Reject link is not used, but the proposal is decided.
    expect(await refusal(await post(fx, urls.reject))).toEqual([409, 'proposal_not_pending']);
  });

  it('rejects with reason "disagree"', async () => {
    const fx = await start();
    const device = await fx.subscribe('lead');
    const id = await fx.propose('read_note');
    const rejected = await post(fx, (await actionUrls(fx, device)).reject);
    expect(await rejected.json()).toEqual({ ok: true, message: 'Rejected read_note for agent' });
    expect(await fx.agent.next((f) => f.kind === 'mcp/reject')).toMatchObject({
      from: 'lead',
      to: ['agent'],
      correlation_id: [id],
      payload: { reason: 'disagree' },
    });
  });

  it('refuses an expired link, an altered one, and one used for another action', async () => {
    const fx = await start();
    const device = await fx.subscribe('lead');
    await fx.propose('read_note');
    const urls = await actionUrls(fx, device);

    const token = new URL(urls.approve!, 'http://x').searchParams.get('t')!;
    const [body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + ACTION_TOKEN_TTL_MS })).toString('base64url')}.${signature}`;
    expect(await refusal(await post(fx, urls.approve!.replace(token, forged)))).toEqual([401, 'invalid_action_token']);
    expect(await refusal(await post(fx, urls.approve!.replace(/t=[^&]+/, 't=')))).toEqual([401, 'invalid_action_token']);
    expect(await refusal(await post(fx, urls.reject!.replace('/actions/reject', '/actions/approve')))).toEqual([401, 'invalid_action_token']);

    clock += ACTION_TOKEN_TTL_MS;
    expect(await refusal(await post(fx, urls.approve))).toEqual([410, 'action_token_expired']);
  });

  it('refuses a link bound to other content than the proposal has, and works across a restart otherwise', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-notify-'));
    const receiver = await startReceiver();
    const first = await start({ dataDir, receiver });
    const device = await first.subscribe('lead');
    const id = await first.propose('read_note', { path: 'notes/a.md' });
    const urls = await actionUrls(first, device);
    await first.close();
    open.splice(0);

    // The signing key and the pending proposal survive the restart. A link signed with that key but for other
    // content (what a proposal id reused for something else would need) is refused; the real one still works.
    const second = await start({ dataDir, receiver });
    const database = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
    const key = database.prepare("SELECT value FROM server_secrets WHERE name = 'action_token_key'").pluck().get() as string;
    database.close();
    const claims = {
      space: 'notify',
      proposal: id,
      participant: 'lead',
      action: 'approve' as const,
      hash: proposalContentHash({
        kind: 'mcp/proposal',
        from: 'agent',
        to: ['tools'],
        payload: { method: 'tools/call', params: { name: 'read_note', arguments: { path: 'notes/b.md' } } },
      }),
    };
    const forged = new ActionTokens(Buffer.from(key, 'base64url')).issue(claims, clock);
    expect(await refusal(await post(second, urls.approve!.replace(/t=[^&]+/, `t=${forged}`)))).toEqual([409, 'proposal_changed']);
    expect((await post(second, urls.approve)).status).toBe(200);
    await receiver.close();
  });

  it('never approves a dangerous tool from a link: a tool that turned dangerous since the push must be confirmed on the page', async () => {
    const fx = await start();
    const device = await fx.subscribe('lead');
    await fx.propose('read_note');
    const urls = await actionUrls(fx, device);
    await fx.declareTools(NOTIFY_TEST_TOOLS.map((tool) => ({ ...tool, security: { risk_level: 'dangerous' } })));
    const refused = await post(fx, urls.approve);
    expect([refused.status, await refused.json()]).toEqual([
      409,
      { error: 'confirmation_required', message: 'read_note must be confirmed in the control room: open the proposal there' },
    ]);
    // The refusal used nothing up: rejecting from the notification still works.
    expect((await post(fx, urls.reject)).status).toBe(200);
  });
});
