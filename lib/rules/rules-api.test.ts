import type { RunningRules } from './rules-feature';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';

const ADMIN = 'admin-token-rules-0123456789';
const config = spaceConfig('auto', { lead: [{ kind: '*' }], agent: [{ kind: 'mcp/proposal' }, { kind: 'chat' }] }, { admin: { tokens: [ADMIN] } });
const NOTES_RULE = {
  name: 'scribe writes notes',
  decision: 'approve',
  match: { proposer: 'scribe', tool: 'write_file', arguments: { path: 'notes/*' } },
  mode: 'shadow',
  examples: { match: [{ proposer: 'scribe', targets: ['files'], method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/a.md' } }] },
};

describe('approval rules API', () => {
  const open: TestGateway[] = [];
  afterEach(async () => {
    for (const gw of open.splice(0)) await gw.close();
  });
  async function start(dataDir: string) {
    const gw = await startGatewayWith({ configs: [config], dataDir });
    open.push(gw);
    return gw;
  }
  const call = (gw: TestGateway, path: string, token: string, init: RequestInit = {}) =>
    fetch(gw.httpUrl(`/api/spaces/auto/rules${path}`), { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });

  it('creates, lists, versions and deletes rules for operators; every change is audited and survives a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-rules-'));
    const gw = await start(dataDir);
    const created = await call(gw, '', tokenOf('lead'), { method: 'POST', body: JSON.stringify(NOTES_RULE) });
    expect(created.status).toBe(201);
    const { rule } = await created.json();
    expect(rule).toMatchObject({ id: expect.any(String), version: 1, name: 'scribe writes notes', mode: 'shadow', created_by: 'lead', allow_dangerous: false });

    const edited = await call(gw, `/${rule.id}`, ADMIN, { method: 'PUT', body: JSON.stringify({ ...NOTES_RULE, mode: 'enforce' }) });
    expect(await edited.json()).toMatchObject({ rule: { id: rule.id, version: 2, mode: 'enforce', created_by: 'admin' } });
    expect((await (await call(gw, '', tokenOf('lead'))).json()).rules).toEqual([expect.objectContaining({ id: rule.id, version: 2 })]);
    await gw.close();
    open.splice(0);

    const again = await start(dataDir);
    expect((await (await call(again, `/${rule.id}`, ADMIN)).json()).rule).toMatchObject({ version: 2, mode: 'enforce' });
    expect(await (await call(again, `/${rule.id}`, ADMIN, { method: 'DELETE' })).json()).toEqual({ deleted: rule.id, version: 3 });
    expect((await (await call(again, '', ADMIN)).json()).rules).toEqual([]);
    expect((await call(again, `/${rule.id}`, ADMIN)).status).toBe(404);
    expect(
      again.audit.query({ space: 'auto', type: ['RULE_CREATED', 'RULE_UPDATED', 'RULE_DELETED'] }).map((e) => [e.type, e.actor, e.details.version]),
    ).toEqual([
      ['RULE_CREATED', 'lead', 1],
      ['RULE_UPDATED', 'admin', 2],
      ['RULE_DELETED', 'admin', 3],
    ]);
  });

  it('refuses agents, and refuses a rule that is malformed or fails its own examples, saying where', async () => {
    const gw = await start(mkdtempSync(join(tmpdir(), 'mew-rules-')));
    const denied = await call(gw, '', tokenOf('agent'), { method: 'POST', body: JSON.stringify(NOTES_RULE) });
    expect([denied.status, (await denied.json()).error]).toEqual([401, 'invalid_token']);
    expect((await call(gw, '', tokenOf('agent'))).status).toBe(401);

    const contradicted = {
      ...NOTES_RULE,
      examples: { not_match: [{ proposer: 'scribe', method: 'tools/call', tool: 'write_file', arguments: { path: 'notes/b.md' } }] },
    };
    const refused = await call(gw, '', ADMIN, { method: 'POST', body: JSON.stringify(contradicted) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: 'invalid_rule',
      issues: [{ path: ['examples', 'not_match', 0], message: 'the rule matches this example' }],
    });
    const malformed = await call(gw, '', ADMIN, { method: 'POST', body: JSON.stringify({ name: 'x', decision: 'sometimes', match: {} }) });
    expect(await malformed.json()).toMatchObject({ error: 'invalid_rule', issues: [{ path: ['decision'] }] });
    expect((await call(gw, '/nope', ADMIN, { method: 'PUT', body: JSON.stringify(NOTES_RULE) })).status).toBe(404);
    expect((await call(gw, '', ADMIN, { method: 'PATCH' })).status).toBe(405);
  });

  it('lists what each rule did (hits, shadow hits, shadow approvals a human rejected, last hit) over its versions', async () => {
    const gw = await start(mkdtempSync(join(tmpdir(), 'mew-rules-')));
    const { rule } = await (await call(gw, '', ADMIN, { method: 'POST', body: JSON.stringify(NOTES_RULE) })).json();
    const records = gw.host('auto').feature<RunningRules>('rules')!.records;
    records.recordEvent(rule, 'shadow_hit', 'p-1', new Date('2026-11-20T10:00:00Z'));
    records.recordEvent(rule, 'shadow_conflict', 'p-1', new Date('2026-11-20T10:05:00Z'));
    const { rule: enforced } = await (await call(gw, `/${rule.id}`, ADMIN, { method: 'PUT', body: JSON.stringify({ ...NOTES_RULE, mode: 'enforce' }) })).json();
    records.recordEvent(enforced, 'hit', 'p-2', new Date('2026-11-20T11:00:00Z'));
    const { rules } = await (await call(gw, '', ADMIN)).json();
    expect(rules).toEqual([
      expect.objectContaining({ id: rule.id, version: 2, hits: 1, shadow_hits: 1, shadow_conflicts: 1, last_hit_at: '2026-11-20T11:00:00.000Z' }),
    ]);
  });

  it('ends the rules bound to a participant’s session when it leaves, audited, and keeps the others', async () => {
    const gw = await start(mkdtempSync(join(tmpdir(), 'mew-rules-')));
    const post = async (body: object) => (await (await call(gw, '', ADMIN, { method: 'POST', body: JSON.stringify(body) })).json()).rule;
    const scribes = await post({ ...NOTES_RULE, name: 'scribe, this session', for_session_of: 'scribe' });
    await post({ ...NOTES_RULE, name: 'agent, this session', for_session_of: 'agent' });
    const lasting = await post({ ...NOTES_RULE, name: 'always', mode: 'disabled' });
    const records = gw.host('auto').feature<RunningRules>('rules')!.records;
    expect(records.endSessions('scribe', 'system:gateway')).toBe(1);
    expect(records.list().map((r) => r.name)).toEqual(['agent, this session', 'always']);
    expect(records.get(scribes.id)).toBeUndefined();
    expect(records.endSessions(undefined, 'system:gateway')).toBe(1);
    expect(records.list()).toEqual([expect.objectContaining({ id: lasting.id, mode: 'disabled' })]);
  });
});
