import WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, TestClient, tokenOf, type TestGateway } from './testing';

const readFile = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
const callReadFile = {
  kind: 'mcp/request',
  to: ['agent'],
  payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: {} } },
};

const config = spaceConfig('mgmt', {
  lead: [{ kind: 'capability/*' }, { kind: 'space/*' }, { kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/*' } }],
  helper: [{ kind: 'capability/grant' }, { kind: 'chat' }],
  agent: [{ kind: 'chat' }, { kind: 'mcp/proposal' }, { kind: 'capability/grant-ack' }],
});

describe('grants and revocations', () => {
  let gw: TestGateway;
  let lead: TestClient;
  let agent: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    lead = await joinAs(gw, tokenOf('lead'), 'space=mgmt');
    agent = await joinAs(gw, tokenOf('agent'), 'space=mgmt');
  });
  afterEach(() => gw.close());

  async function grantReadFile() {
    lead.send({ id: 'grant-1', kind: 'capability/grant', to: ['agent'], payload: { recipient: 'agent', capabilities: [readFile], reason: 'trusted now' } });
    const welcome = await agent.kind('system/welcome');
    expect(welcome.payload.you.capabilities).toContainEqual(readFile);
    return welcome;
  }

  it('routes a grant, changes the recipient’s capabilities at once and sends it a fresh welcome', async () => {
    agent.send(callReadFile);
    expect((await agent.kind('system/error')).payload.error).toBe('capability_violation');
    await grantReadFile();
    expect((await agent.kind('capability/grant')).id).toBe('grant-1');
    agent.send({ ...callReadFile, id: 'now-allowed' });
    expect((await lead.next((f) => f.id === 'now-allowed')).from).toBe('agent');
  });

  it('refuses a grant of capabilities the granter does not hold, changing nothing', async () => {
    const helper = await joinAs(gw, tokenOf('helper'), 'space=mgmt');
    helper.send({ id: 'overreach', kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/*' }] } });
    const error = await helper.kind('system/error');
    expect(error).toMatchObject({ correlation_id: ['overreach'], payload: { error: 'grant_exceeds_own_capabilities', not_held: [{ kind: 'mcp/*' }] } });
    agent.send(callReadFile);
    expect((await agent.kind('system/error')).payload.error).toBe('capability_violation');
    expect(lead.received.some((f) => f.id === 'overreach')).toBe(false);
  });

  it('refuses grants to unknown participants and grants carrying regular expressions', async () => {
    lead.send({ id: 'g-ghost', kind: 'capability/grant', payload: { recipient: 'ghost', capabilities: [{ kind: 'chat' }] } });
    expect((await lead.kind('system/error')).payload.error).toBe('unknown_participant');
    lead.send({ id: 'g-re', kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'chat', payload: { text: '/(a+)+$/' } }] } });
    expect((await lead.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope', message: expect.stringMatching(/regular expressions/) });
  });

  it('keeps a grant across the recipient’s reconnect', async () => {
    await grantReadFile();
    agent.close();
    await agent.closed;
    const again = await joinAs(gw, tokenOf('agent'), 'space=mgmt');
    again.send({ ...callReadFile, id: 'after-reconnect' });
    await lead.next((f) => f.id === 'after-reconnect');
  });

  it('revokes by grant id: immediate, with a fresh welcome, and unknown grant ids are refused', async () => {
    await grantReadFile();
    lead.send({ id: 'rev-1', kind: 'capability/revoke', payload: { recipient: 'agent', grant_id: 'grant-1' } });
    expect((await agent.kind('system/welcome')).payload.you.capabilities).not.toContainEqual(readFile);
    agent.send({ ...callReadFile, id: 'refused' });
    expect((await agent.kind('system/error')).payload.error).toBe('capability_violation');
    lead.send({ id: 'rev-2', kind: 'capability/revoke', payload: { recipient: 'agent', grant_id: 'grant-1' } });
    expect((await lead.kind('system/error')).payload.error).toBe('unknown_grant');
  });

  it('revokes by pattern every granted and configured capability the pattern covers', async () => {
    await grantReadFile();
    lead.send({ kind: 'capability/revoke', payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/*' }] } });
    const welcome = await agent.kind('system/welcome');
    expect(welcome.payload.you.capabilities).toEqual([{ kind: 'chat' }, { kind: 'capability/grant-ack' }]);
    agent.send({ kind: 'mcp/proposal', payload: { method: 'tools/call', params: { name: 'x' } } });
    expect((await agent.kind('system/error')).payload.error).toBe('capability_violation');
  });
});

describe('invites and kicks', () => {
  let gw: TestGateway;
  let lead: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    lead = await joinAs(gw, tokenOf('lead'), 'space=mgmt');
  });
  afterEach(() => gw.close());

  it('mints a token for an invitee, tells only the inviter, and the token joins with the initial capabilities', async () => {
    const agent = await joinAs(gw, tokenOf('agent'), 'space=mgmt');
    lead.send({ id: 'inv-1', kind: 'space/invite', payload: { participant_id: 'newbie', initial_capabilities: [{ kind: 'chat' }], reason: 'help' } });
    const ack = await lead.kind('space/invite-ack');
    expect(ack).toMatchObject({
      to: ['lead'],
      correlation_id: ['inv-1'],
      payload: { status: 'created', participant_id: 'newbie', connection_url: `ws://127.0.0.1:${gw.port}/ws?space=mgmt` },
    });
    const seen = await agent.kind('space/invite');
    expect(JSON.stringify(seen)).not.toContain(ack.payload.token);
    expect(agent.received.some((f) => f.kind === 'space/invite-ack')).toBe(false);
    const newbie = new TestClient(new WebSocket(ack.payload.connection_url, { headers: { Authorization: `Bearer ${ack.payload.token}` } }));
    expect((await newbie.kind('system/welcome')).payload.you).toEqual({ id: 'newbie', capabilities: [{ kind: 'chat' }] });
  });

  it.each([
    ['an existing id', { participant_id: 'agent' }, 'already_exists'],
    ['an id with a slash', { participant_id: '../etc' }, 'invalid_envelope'],
    ['capabilities the inviter lacks', { participant_id: 'x', initial_capabilities: [{ kind: 'participant/pause' }] }, 'grant_exceeds_own_capabilities'],
  ])('refuses an invite of %s', async (_name, payload, code) => {
    lead.send({ kind: 'space/invite', payload });
    expect((await lead.kind('system/error')).payload.error).toBe(code);
  });

  it('kicks: closes the target with 4403, broadcasts leave, and its token stops working', async () => {
    const agent = await joinAs(gw, tokenOf('agent'), 'space=mgmt');
    lead.send({ kind: 'space/kick', payload: { participant_id: 'agent', reason: 'misbehaving' } });
    expect((await agent.closed).code).toBe(4403);
    expect((await lead.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave')).payload.participant.id).toBe('agent');
    const retry = new TestClient(new WebSocket(gw.wsUrl('space=mgmt'), { headers: { Authorization: `Bearer ${tokenOf('agent')}` } }));
    await expect(retry.opened).rejects.toMatchObject({ status: 401 });
    lead.send({ kind: 'space/kick', payload: { participant_id: 'nobody' } });
    expect((await lead.kind('system/error')).payload.error).toBe('unknown_participant');
  });

  it('lets a kicked participant back only through a new invite, with a new token', async () => {
    lead.send({ kind: 'space/kick', payload: { participant_id: 'agent' } });
    await lead.kind('space/kick');
    lead.send({ kind: 'space/invite', payload: { participant_id: 'agent', initial_capabilities: [{ kind: 'chat' }] } });
    const ack = await lead.kind('space/invite-ack');
    expect(ack.payload.token).not.toBe(tokenOf('agent'));
    const back = await joinAs(gw, ack.payload.token, 'space=mgmt');
    back.send({ kind: 'chat', payload: { text: 'back' } });
    await lead.next((f) => f.kind === 'chat' && f.from === 'agent');
  });
});
