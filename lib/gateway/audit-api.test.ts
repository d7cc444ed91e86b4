import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_TABLE } from './audit';
import { DATABASE_FILE } from './persistence/gateway-database';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestClient, type TestGateway } from './testing';

const ADMIN = 'admin-token-0123456789';
const config = spaceConfig(
  'aud',
  {
    lead: [{ kind: '*' }],
    agent: [{ kind: 'chat' }, { kind: 'mcp/proposal' }, { kind: 'mcp/response' }, { kind: 'mcp/withdraw' }],
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
    lead.send({
      id: 'ful-1',
      kind: 'mcp/request',
      to: ['tool'],
      correlation_id: ['prop-1'],
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file' } },
    });
    agent.send({ id: 'prop-2', kind: 'mcp/proposal', to: ['tool'], payload: { method: 'tools/call', params: { name: 'delete_file' } } });
    await lead.next((f) => f.id === 'prop-2');
    lead.send({ id: 'rej-1', kind: 'mcp/reject', to: ['agent'], correlation_id: ['prop-2'], payload: { reason: 'unsafe', explanation: 'Not the logs.' } });
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
    expect(all.find((e) => e.type === 'PROPOSAL_REJECTED')?.details).toMatchObject({
      proposal_id: 'prop-2',
      reason: 'unsafe',
      explanation: 'Not the logs.',
      tool: 'delete_file',
    });
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
    const lines = (await jsonl.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'PARTICIPANT_JOINED', space: 'aud' });
    const csv = await get('?format=csv', tokenOf('lead'), '/api/spaces/aud/audit/export');
    expect(csv.status).toBe(200);
    expect((await csv.text()).split('\r\n')[0]).toBe('id,ts,space,type,actor,subject,envelope_id,details,hash');
    const denied = await get('', tokenOf('agent'));
    expect([denied.status, (await denied.json()).error]).toEqual([401, 'invalid_token']);
  });

  it('verifies the chain for operators: ok with the count and the head, then broken where a row was edited', async () => {
    lead.send({ kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'chat' }] } });
    await lead.kind('capability/grant');
    const ok = await (await get('', tokenOf('lead'), '/api/spaces/aud/audit/verify')).json();
    expect(ok).toMatchObject({ ok: true, checked: expect.any(Number), head: { id: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(ok.checked).toBeGreaterThanOrEqual(3);
    const denied = await get('', tokenOf('agent'), '/api/spaces/aud/audit/verify');
    expect(denied.status).toBe(401);

    // An edit behind the log's back (triggers dropped, as an attacker with the file could).
    gw.audit.flush();
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.exec(`DROP TRIGGER ${AUDIT_TABLE}_no_update`);
    const second = (db.prepare(`SELECT id FROM ${AUDIT_TABLE} WHERE space = 'aud' ORDER BY id LIMIT 1 OFFSET 1`).get() as { id: number }).id;
    db.prepare(`UPDATE ${AUDIT_TABLE} SET actor = 'someone-else' WHERE id = ?`).run(second);
    db.close();
    expect(await (await get('', ADMIN, '/api/spaces/aud/audit/verify')).json()).toMatchObject({ ok: false, broken_at: second, checked: 1 });
  });

  it('tells each proposal’s trail as one chain by trace_id: proposed, decided by whom, executed with its outcome, or withdrawn', async () => {
    const tool = await joinAs(gw, tokenOf('tool'), 'space=aud');
    const call = { method: 'tools/call', params: { name: 'write_file', arguments: { path: 'a' } } };
    agent.send({ id: 'p-approved', kind: 'mcp/proposal', to: ['tool'], payload: call });
    await lead.next((f) => f.id === 'p-approved');
    lead.send({ id: 'r-approved', kind: 'mcp/request', to: ['tool'], correlation_id: ['p-approved'], payload: { jsonrpc: '2.0', id: 7, ...call } });
    await tool.next((f) => f.id === 'r-approved');
    tool.send({
      id: 'answer',
      kind: 'mcp/response',
      to: ['lead'],
      correlation_id: ['r-approved'],
      payload: { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'disk full' } },
    });
    agent.send({ id: 'p-rejected', kind: 'mcp/proposal', to: ['tool'], payload: call });
    await lead.next((f) => f.id === 'p-rejected');
    lead.send({ id: 'no', kind: 'mcp/reject', to: ['agent'], correlation_id: ['p-rejected'], payload: { reason: 'unsafe' } });
    agent.send({ id: 'p-withdrawn', kind: 'mcp/proposal', to: ['tool'], payload: call });
    agent.send({ id: 'gone', kind: 'mcp/withdraw', correlation_id: ['p-withdrawn'], payload: { reason: 'timeout' } });
    await lead.next((f) => f.id === 'gone');

    const trail = async (id: string) =>
      (await events('?type=PROPOSAL_CREATED,PROPOSAL_FULFILLED,PROPOSAL_REJECTED,PROPOSAL_WITHDRAWN,PROPOSAL_EXECUTED&limit=100'))
        .filter((e) => e.details.trace_id === id)
        .map((e) => [e.type, e.actor, e.subject ?? null]);
    expect(await trail('p-approved')).toEqual([
      ['PROPOSAL_CREATED', 'agent', null],
      ['PROPOSAL_FULFILLED', 'lead', 'agent'],
      ['PROPOSAL_EXECUTED', 'tool', 'agent'],
    ]);
    const [executed] = await events('?type=PROPOSAL_EXECUTED');
    expect(executed.details).toMatchObject({ approved_by: 'lead', tool: 'write_file', outcome: 'error', error: { code: -32000, message: 'disk full' } });
    expect(await trail('p-rejected')).toEqual([
      ['PROPOSAL_CREATED', 'agent', null],
      ['PROPOSAL_REJECTED', 'lead', 'agent'],
    ]);
    expect(await trail('p-withdrawn')).toEqual([
      ['PROPOSAL_CREATED', 'agent', null],
      ['PROPOSAL_WITHDRAWN', 'agent', null],
    ]);
  });

  it('lifts a timed pause when it lapses, and audits the resume as the gateway’s', async () => {
    lead.send({ id: 'hold', kind: 'participant/pause', to: ['agent'], payload: { timeout_seconds: 1, reason: 'brief' } });
    await lead.next((f) => f.id === 'hold');
    await expect
      .poll(async () => (await events('?type=PARTICIPANT_RESUMED')).map((e) => [e.actor, e.subject, e.details.reason]), { timeout: 5_000 })
      .toEqual([['system:gateway', 'agent', 'timeout']]);
    expect(gw.gateway.spaces.get('aud')!.state.paused).toEqual({});
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
