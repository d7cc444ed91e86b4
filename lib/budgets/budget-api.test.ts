import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSpaceConfig, SpaceConfigError } from '../gateway/space-config';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';

const ADMIN = 'admin-token-budgets-0123456789';
const base = spaceConfig(
  'money',
  { lead: [{ kind: 'capability/grant' }, { kind: 'participant/*' }], agent: [{ kind: 'chat' }, { kind: 'participant/status' }] },
  { admin: { tokens: [ADMIN] } },
);
/** The agent's config gives it a price and a token budget; operators change it at run time. */
const config = {
  ...base,
  participants: { ...base.participants, agent: { ...base.participants.agent, budget: { tokens: 50_000, price_per_1k_tokens_usd: 0.01 } } },
};

describe('budgets API', () => {
  const open: TestGateway[] = [];
  afterEach(async () => {
    for (const gw of open.splice(0)) await gw.close();
  });
  async function start(dataDir = mkdtempSync(join(tmpdir(), 'mew-budgets-'))) {
    const gw = await startGatewayWith({ configs: [config], dataDir });
    open.push(gw);
    return gw;
  }
  const call = (gw: TestGateway, path: string, token: string | undefined, init: RequestInit = {}) =>
    fetch(gw.httpUrl(`/api/spaces/money/budgets${path}`), {
      ...init,
      headers: { ...(token && { Authorization: `Bearer ${token}` }), 'Content-Type': 'application/json' },
    });
  const put = (gw: TestGateway, token: string, body: unknown) => call(gw, '/agent', token, { method: 'PUT', body: JSON.stringify(body) });

  it('lets any member read budgets and only operators change them; every change is audited and survives a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-budgets-'));
    const gw = await start(dataDir);
    const listed = await call(gw, '', tokenOf('agent'));
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({
      budgets: [{ participant: 'agent', tokens: 50_000, price_per_1k_tokens_usd: 0.01, spent_tokens: 0, state: 'ok', set_by: 'config', source: 'config' }],
    });

    const refused = await put(gw, tokenOf('agent'), { tokens: 1 });
    expect([refused.status, (await refused.json()).error]).toEqual([403, 'capability_violation']);
    expect((await call(gw, '', undefined)).status).toBe(401);
    expect((await call(gw, '', 'not-a-token-of-this-space')).status).toBe(401);
    expect((await call(gw, '/agent', tokenOf('agent'), { method: 'DELETE' })).status).toBe(403);

    const byLead = await put(gw, tokenOf('lead'), { tokens: 10_000, usd: 2 });
    expect(byLead.status).toBe(200);
    expect((await byLead.json()).budget).toMatchObject({
      participant: 'agent',
      tokens: 10_000,
      usd: 2,
      price_per_1k_tokens_usd: 0.01,
      set_by: 'lead',
      source: 'runtime',
    });
    expect((await put(gw, ADMIN, { usd: 1 })).status).toBe(200);

    const agent = await joinAs(gw, tokenOf('agent'), 'space=money');
    agent.send({ kind: 'participant/status', payload: { messages_in_context: 1, total_tokens: 100_000 } });
    await agent.next((f) => f.kind === 'participant/pause');
    await gw.close();
    open.splice(0);

    const again = await start(dataDir);
    const [budget] = (await (await call(again, '', ADMIN)).json()).budgets;
    expect(budget).toMatchObject({
      participant: 'agent',
      usd: 1,
      price_per_1k_tokens_usd: 0.01,
      set_by: 'admin',
      source: 'runtime',
      state: 'exceeded',
      spent_tokens: 0,
    });
    expect(budget.exceeded_at).toEqual(expect.any(String));
    // Still paused, and its next statuses over the budget do not pause it again.
    const rejoined = await joinAs(again, tokenOf('agent'), 'space=money');
    rejoined.send({ kind: 'participant/status', payload: { messages_in_context: 1, total_tokens: 200_000 } });
    await rejoined.next((f) => f.kind === 'participant/status');
    rejoined.send({ id: 'chat-1', kind: 'chat', payload: { text: 'hello?' } });
    expect((await rejoined.next((f) => f.kind === 'system/error')).payload.error).toBe('participant_paused');
    expect(again.audit.query({ space: 'money', type: ['BUDGET_EXCEEDED'] })).toHaveLength(1);

    const cleared = await call(again, '/agent', tokenOf('lead'), { method: 'DELETE' });
    expect((await cleared.json()).budget).toMatchObject({ tokens: 50_000, source: 'config', state: 'exceeded', spent_tokens: 200_000 });
    expect(again.audit.query({ space: 'money', type: ['BUDGET_SET', 'BUDGET_CLEARED'] }).map((e) => [e.type, e.actor, e.details])).toEqual([
      ['BUDGET_SET', 'lead', { budget_tokens: 10_000, budget_usd: 2, previous: { budget_tokens: 50_000, price_per_1k_tokens_usd: 0.01 } }],
      ['BUDGET_SET', 'admin', { budget_usd: 1, previous: { budget_tokens: 10_000, budget_usd: 2, price_per_1k_tokens_usd: 0.01 } }],
      ['BUDGET_CLEARED', 'lead', { previous: { budget_usd: 1 } }],
    ]);
  });

  it('refuses a malformed budget with 400 and says where; an unknown participant is 404', async () => {
    const gw = await start();
    for (const [body, path] of [
      [{ tokens: 0 }, ['tokens']],
      [{ tokens: 1.5 }, ['tokens']],
      [{ usd: -1 }, ['usd']],
      [{ price_per_1k_tokens_usd: 0.01 }, []],
      [{ tokens: 10, hours: 3 }, []],
      [[], []],
    ] as const) {
      const refused = await put(gw, ADMIN, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_budget', message: expect.stringMatching(/^invalid budget: /), issues: [{ path }] });
    }
    expect((await call(gw, '/agent', ADMIN, { method: 'PUT', body: '{' })).status).toBe(400);
    expect((await call(gw, '/ghost', ADMIN, { method: 'PUT', body: JSON.stringify({ tokens: 5 }) })).status).toBe(404);
    expect((await call(gw, '', ADMIN, { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('refuses a bad budget in the config, naming where it is', () => {
    const bad = { ...base, participants: { ...base.participants, agent: { ...base.participants.agent, budget: { tokens: 0 } } } };
    expect(() => parseSpaceConfig(bad, 'space.yaml')).toThrow(
      new SpaceConfigError('space.yaml', ['participants', 'agent', 'budget', 'tokens'], 'must be above 0'),
    );
  });
});
