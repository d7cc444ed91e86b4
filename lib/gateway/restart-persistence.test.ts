import WebSocket from 'ws';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startGatewayWith, TestClient, tokenOf } from './testing';

const config = spaceConfig('persist', {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'chat' }, { kind: 'mcp/proposal' }],
  victim: [{ kind: 'chat' }],
});

describe('a gateway restart', () => {
  it('keeps grants, revocations, invites and kicks', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-persist-'));
    const first = await startGatewayWith({ configs: [config], dataDir });
    const lead = await joinAs(first, tokenOf('lead'), 'space=persist');
    lead.send({ kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'reasoning/*' }] } });
    await lead.kind('capability/grant');
    lead.send({ kind: 'capability/revoke', payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/proposal' }] } });
    await lead.kind('capability/revoke');
    lead.send({ kind: 'space/invite', payload: { participant_id: 'guest', initial_capabilities: [{ kind: 'chat' }] } });
    const { payload: ack } = await lead.kind('space/invite-ack');
    lead.send({ kind: 'space/kick', payload: { participant_id: 'victim' } });
    await lead.kind('space/kick');
    expect(statSync(join(dataDir, 'persist', 'state.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'persist', 'tokens.json')).mode & 0o777).toBe(0o600);
    await first.close();

    const second = await startGatewayWith({ configs: [config], dataDir, port: first.port });
    const agent = await joinAs(second, tokenOf('agent'), 'space=persist');
    expect(agent.welcome?.payload.you.capabilities).toEqual([{ kind: 'chat' }, { kind: 'reasoning/*' }]);
    const guest = await joinAs(second, ack.token, 'space=persist');
    expect(guest.welcome?.payload.you.capabilities).toEqual([{ kind: 'chat' }]);
    const victim = new TestClient(new WebSocket(second.wsUrl('space=persist'), { headers: { Authorization: `Bearer ${tokenOf('victim')}` } }));
    await expect(victim.opened).rejects.toMatchObject({ status: 401 });
    await second.close();
  });
});
