import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStoredTokens } from './persistence/stored-tokens';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestGateway } from './testing';

const ADMIN = 'admin-token-0123456789';
const config = spaceConfig('adm', { lead: [{ kind: '*' }], agent: [{ kind: 'chat' }] }, { admin: { tokens: [ADMIN] } });

describe('admin API', () => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startGatewayWith({ configs: [config] });
  });
  afterEach(() => gw.close());

  const call = (path: string, init: RequestInit = {}, token = ADMIN) =>
    fetch(gw.httpUrl(path), { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers } });

  it('lists participants with connection state, effective capabilities and grants with who granted them', async () => {
    const lead = await joinAs(gw, tokenOf('lead'), 'space=adm');
    lead.send({ id: 'g1', kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/proposal' }], reason: 'try' } });
    await lead.kind('capability/grant');
    const res = await call('/admin/spaces/adm/participants');
    expect(res.status).toBe(200);
    const { participants } = await res.json();
    expect(participants.find((p: { id: string }) => p.id === 'lead')).toMatchObject({ online: true, capabilities: [{ kind: '*' }] });
    expect(participants.find((p: { id: string }) => p.id === 'agent')).toMatchObject({
      online: false,
      capabilities: [{ kind: 'chat' }, { kind: 'mcp/proposal' }],
      grants: [{ id: 'g1', granted_by: 'lead', reason: 'try', revoked: null }],
    });
  });

  it('adds and removes capabilities, returning the old and new sets, and the participant hears of it', async () => {
    const agent = await joinAs(gw, tokenOf('agent'), 'space=adm');
    const res = await call('/admin/spaces/adm/participants/agent/capabilities', {
      method: 'POST',
      body: JSON.stringify({ add: [{ kind: 'mcp/proposal' }], remove: [{ kind: 'chat' }] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ participant: 'agent', old: [{ kind: 'chat' }], new: [{ kind: 'mcp/proposal' }] });
    await agent.next((f) => f.kind === 'system/welcome' && f.payload.you.capabilities.length === 1 && f.payload.you.capabilities[0].kind === 'mcp/proposal');
    expect((await agent.kind('capability/grant')).from).toBe('system:gateway');
    const [changed] = gw.audit.query({ space: 'adm', type: 'CAPABILITIES_CHANGED' });
    expect(changed).toMatchObject({ actor: 'admin', subject: 'agent', details: { before: [{ kind: 'chat' }], after: [{ kind: 'mcp/proposal' }] } });
  });

  it('answers MCPx §11.3 as written on /admin/participants/{id}/capabilities, the space being the only one or ?space=', async () => {
    const body = JSON.stringify({ add: ['mcp/request:tools/*'], remove: [] });
    const res = await call('/admin/participants/agent/capabilities', { method: 'POST', body });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toEqual({
      participantId: 'agent',
      oldCapabilities: [{ kind: 'chat' }],
      newCapabilities: [{ kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/*' } }],
      modifiedBy: 'admin',
      modifiedAt: expect.any(String),
    });
    expect(Date.parse(answer.modifiedAt)).not.toBeNaN();
    const named = await call('/admin/participants/agent/capabilities?space=adm', { method: 'POST', body: JSON.stringify({ remove: ['mcp/request:*'] }) });
    expect((await named.json()).newCapabilities).toEqual([{ kind: 'chat' }]);
    const unknown = await call('/admin/participants/agent/capabilities?space=nope', { method: 'POST', body });
    expect([unknown.status, (await unknown.json()).error]).toEqual([404, 'unknown_space']);
  });

  it('asks which space when the gateway serves several and none is named', async () => {
    const several = await startGatewayWith({ configs: [config, spaceConfig('other', { x: ['chat'] }, { admin: { tokens: [ADMIN] } })] });
    const post = (path: string) =>
      fetch(several.httpUrl(path), {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
        body: '{"add":["chat"]}',
      });
    const ambiguous = await post('/admin/participants/agent/capabilities');
    expect([ambiguous.status, (await ambiguous.json()).message]).toEqual([400, expect.stringMatching(/serves 2 spaces: name one with \?space=/)]);
    expect((await post('/admin/participants/x/capabilities?space=other')).status).toBe(200);
    await several.close();
  });

  it('refuses wrong tokens, unknown participants and malformed bodies with JSON errors', async () => {
    const wrong = await call('/admin/spaces/adm/participants', {}, tokenOf('lead'));
    expect([wrong.status, (await wrong.json()).error]).toEqual([401, 'invalid_token']);
    const unknown = await call('/admin/spaces/adm/participants/ghost/capabilities', { method: 'POST', body: '{"add":[]}' });
    expect([unknown.status, (await unknown.json()).error]).toEqual([404, 'unknown_participant']);
    const bad = await call('/admin/spaces/adm/participants/agent/capabilities', { method: 'POST', body: '{"add":[{"nokind":1}]}' });
    expect([bad.status, (await bad.json()).error]).toEqual([400, 'invalid_envelope']);
    const space = await call('/admin/spaces/nope/participants');
    expect([space.status, (await space.json()).error]).toEqual([404, 'unknown_space']);
  });

  it('mints an admin token into the data directory when the config names none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-admin-'));
    const other = await startGatewayWith({ configs: [spaceConfig('minted', { a: ['chat'] })], dataDir });
    const { admin } = readStoredTokens(dataDir, 'minted');
    const res = await fetch(other.httpUrl('/admin/spaces/minted/participants'), { headers: { Authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    await other.close();
  });
});
