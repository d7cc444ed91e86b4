import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const propose = (id: string) => ({
  id,
  kind: 'mcp/proposal',
  to: ['files'],
  payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: {} } },
});
const withdraw = (id: string, proposalId: string) => ({ id, kind: 'mcp/withdraw', correlation_id: [proposalId], payload: { reason: 'no_longer_needed' } });

const config = spaceConfig('wd', {
  lead: [{ kind: 'capability/grant' }, { kind: 'mcp/*' }],
  scribe: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }],
  rogue: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }],
  files: [{ kind: 'mcp/response' }],
});

describe('only the proposer withdraws', () => {
  let gw: TestGateway;
  let lead: TestClient;
  let scribe: TestClient;
  let rogue: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    lead = await joinAs(gw, tokenOf('lead'), 'space=wd');
    scribe = await joinAs(gw, tokenOf('scribe'), 'space=wd');
    rogue = await joinAs(gw, tokenOf('rogue'), 'space=wd');
  });
  afterEach(() => gw.close());

  it('refuses, audits and tells operators of a withdraw of someone else’s proposal; the proposer’s own passes', async () => {
    scribe.send(propose('p1'));
    await rogue.next((f) => f.id === 'p1');
    rogue.send(withdraw('w-rogue', 'p1'));
    expect(await rogue.kind('system/error')).toMatchObject({
      correlation_id: ['w-rogue'],
      payload: { error: 'not_proposer', proposal_id: 'p1', proposer: 'scribe' },
    });
    expect((await lead.kind('system/security-event')).payload).toMatchObject({ offender: 'rogue', error: 'not_proposer', attempted_kind: 'mcp/withdraw' });
    scribe.send(withdraw('w-own', 'p1'));
    await lead.next((f) => f.id === 'w-own');
    expect(lead.received.some((f) => f.id === 'w-rogue')).toBe(false);
    gw.audit.flush();
    expect(gw.audit.query({ space: 'wd', type: 'ACCESS_DENIED' })).toContainEqual(
      expect.objectContaining({ actor: 'rogue', envelope_id: 'w-rogue', details: expect.objectContaining({ error: 'not_proposer' }) }),
    );
  });

  it('keeps the first proposer when another proposal reuses its id', async () => {
    scribe.send(propose('p2'));
    await rogue.next((f) => f.id === 'p2');
    rogue.send(propose('p2'));
    await lead.next((f) => f.id === 'p2' && f.from === 'rogue');
    rogue.send(withdraw('w-hijack', 'p2'));
    expect((await rogue.kind('system/error')).payload.error).toBe('not_proposer');
  });

  it('routes a withdraw of a proposal the gateway does not know (forgotten, or from before a restart)', async () => {
    rogue.send(withdraw('w-unknown', 'never-seen'));
    expect((await lead.next((f) => f.id === 'w-unknown')).from).toBe('rogue');
  });
});
