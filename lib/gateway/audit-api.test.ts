import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestClient, type TestGateway } from './testing';

const ADMIN = 'admin-token-0123456789';
const config = spaceConfig(
  'aud',
  {
    lead: [{ kind: '*' }],
    agent: [{ kind: 'chat' }, { kind: 'mcp/proposal' }, { kind: 'mcp/response' }],
    tool: [{ kind: 'mcp/response' }],
  },
  { admin: { tokens: [ADMIN] } },
);

interface AuditRow {
  type: string;
  actor?: string;
  subject?: string;
  details: Record<string, unknown>;
}

describe('audit log', () => {
  let gw: TestGateway;
  let lead: TestClient;
  let agent: TestClient;
  let dataDir: string;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mew-audit-'));
    gw = await startGatewayWith({ configs: [config], dataDir });
    lead = await joinAs(gw, tokenOf('lead'), 'space=aud');
    agent = await joinAs(gw, tokenOf('agent'), 'space=aud');
  });
  afterEach(() => gw.close());

  const get = (query = '', token = ADMIN, path = '/api/spaces/aud/audit') =>
    fetch(gw.httpUrl(`${path}${query}`), { headers: { Authorization: `Bearer ${token}` } });
  const events = async (query = ''): Promise<AuditRow[]> => (await (await get(query)).json()).events;

  it('records joins, grants, violations, kicks and proposal decisions with who did what to whom', async () => {
    lead.send({ id: 'g1', kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'reasoning/*' }] } });
    await lead.kind('capability/grant');
    agent.send({ id: 'bad', kind: 'mcp/request', to: ['tool'], payload: { method: 'tools/call', params: { name: 'rm' } } });
    await agent.kind('system/error');
    agent.send({ id: 'prop-1', kind: 'mcp/proposal', to: ['tool'], payload: { method: 'tools/call', params: { name: 'write_file' } } });
    await lead.next((f) => f.id === 'prop-1');
    lead.send({ id: 'ful-1', kind: 'mcp/request', to: ['tool'], correlation_id: ['prop-1'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file' } } });
    agent.send({ id: 'prop-2', kind: 'mcp/proposal', to: ['tool'], payload: { method: 'tools/call', params: { name: 'delete_file' } } });
    await lead.next((f) => f.id === 'prop-2');
    lead.send({ id: 'rej-1', kind: 'mcp/reject', to: ['agent'], correlation_id: ['prop-2'], payload: { reason: 'unsafe' } });
    await agent.next((f) => f.id === 'rej-1');
    lead.send({ kind: 'space/kick', payload: { participant_id: 'agent', reason: 'done' } });
    await agent.closed;

    const all = await events('?limit=100');
    const summary = all.map((e) => [e.type, e.actor, e.subject]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ['PARTICIPANT_JOINED', 'lead', undefined],
        ['ACCESS_GRANTED', 'lead', 'agent'],
        ['TOOL_BLOCKED', 'agent', undefined],
        ['PROPOSAL_FULFILLED', 'lead', 'agent'],
        ['PROPOSAL_REJECTED', 'lead', 'agent'],
        ['PARTICIPANT_KICKED', 'lead', 'agent'],
        ['PARTICIPANT_LEFT', 'agent', undefined],
      ]),
    );
    expect(all.find((e) => e.type === 'PROPOSAL_REJECTED')?.details).toMatchObject({ proposal_id: 'prop-2', reason: 'unsafe', tool: 'delete_file' });
    expect(all.find((e) => e.type === 'TOOL_BLOCKED')?.details).toMatchObject({ error: 'capability_violation', tool: 'rm' });
  });

  it('filters by type and participant, and does not audit malformed frames', async () => {
    agent.send('not json');
    await agent.kind('system/error');
    lead.send({ kind: 'participant/pause', to: ['agent'], payload: { timeout_seconds: 30 } });
    await agent.kind('participant/pause');
    const paused = await events('?type=PARTICIPANT_PAUSED');
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ actor: 'lead', subject: 'agent', details: { timeout_seconds: 30 } });
    const aboutAgent = await events('?participant=agent');
    expect(aboutAgent.every((e) => e.actor === 'agent' || e.subject === 'agent')).toBe(true);
    expect(aboutAgent.some((e) => e.type === 'ACCESS_DENIED')).toBe(false);
  });

  it('exports JSONL and CSV, and lets operators but not others read it', async () => {
    const jsonl = await get('?format=jsonl', ADMIN, '/api/spaces/aud/audit/export');
    expect(jsonl.headers.get('content-type')).toMatch(/ndjson/);
    const lines = (await jsonl.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'PARTICIPANT_JOINED', space: 'aud' });
    const csv = await get('?format=csv', tokenOf('lead'), '/api/spaces/aud/audit/export');
    expect(csv.status).toBe(200);
    expect((await csv.text()).split('\r\n')[0]).toBe('id,ts,space,type,actor,subject,envelope_id,details,hash');
    const denied = await get('', tokenOf('agent'));
    expect([denied.status, (await denied.json()).error]).toEqual([401, 'invalid_token']);
  });

  it('keeps every event across a clean restart', async () => {
    lead.send({ kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'chat' }] } });
    await lead.kind('capability/grant');
    await gw.close();
    gw = await startGatewayWith({ configs: [config], dataDir });
    const all = await events('?type=ACCESS_GRANTED');
    expect(all).toHaveLength(1);
  });
});
