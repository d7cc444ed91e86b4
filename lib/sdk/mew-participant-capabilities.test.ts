import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { nextEvent, participantFactory } from './testing';

const WRITE = { method: 'tools/call', params: { name: 'write_file' } };
const READ = { method: 'tools/call', params: { name: 'read_file' } };

const config = spaceConfig('caps', {
  alice: ['chat', 'mcp/proposal:*', 'mcp/request:tools/call:read_*', { kind: 'capability/grant-ack' }],
  admin: [{ kind: 'capability/*' }, { kind: 'mcp/*' }, { kind: 'chat' }],
  bob: ['chat'],
});

describe('MEWParticipant capabilities', () => {
  let gw: TestGateway;
  let alice: MEWParticipant;
  let admin: TestClient;
  const participants = participantFactory('caps', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    alice = await participants.connect('alice', { autoDiscovery: false });
    admin = await joinAs(gw, tokenOf('admin'), 'space=caps');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('answers canSend with the gateway’s matcher over the welcome’s capabilities (MCPx shorthand included)', () => {
    expect(alice.canSend('chat', { text: 'hi' })).toBe(true);
    expect(alice.canSend('mcp/request', READ)).toBe(true);
    expect(alice.canSend('mcp/request', WRITE)).toBe(false);
    expect(alice.canSend('mcp/request', { method: 'tools/list' })).toBe(false);
    expect(alice.canSend('mcp/proposal', WRITE)).toBe(true);
    expect(alice.canSend('participant/pause', {})).toBe(false);
  });

  it('knows what others may send, including the grants it made itself', async () => {
    await joinAs(gw, tokenOf('bob'), 'space=caps');
    const lead = await participants.connect('admin', { autoDiscovery: false });
    const bob = () => lead.participants.find((p) => p.id === 'bob');
    expect(bob()?.capabilities).toEqual([{ kind: 'chat' }]);
    const granted = lead.sendAndAwait(
      { kind: 'capability/grant', to: ['bob'], payload: { recipient: 'bob', capabilities: [{ kind: 'mcp/proposal' }] } },
      { replyKinds: [], timeoutMs: 3000 },
    );
    await granted.reply;
    expect(bob()?.capabilities).toEqual([{ kind: 'chat' }, { kind: 'mcp/proposal' }]);
  });

  it('acknowledges a grant addressed to it and takes the fresh welcome’s capabilities', async () => {
    const updated = nextEvent(alice, 'capabilities', (caps) => caps.length === 5);
    admin.send({
      id: 'grant-1',
      kind: 'capability/grant',
      to: ['alice'],
      payload: { recipient: 'alice', capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'write_*' } } }] },
    });
    expect(await admin.kind('capability/grant-ack')).toMatchObject({
      from: 'alice',
      to: ['admin'],
      correlation_id: ['grant-1'],
      payload: { status: 'accepted' },
    });
    await updated;
    expect(alice.canSend('mcp/request', WRITE)).toBe(true);

    const revoked = nextEvent(alice, 'capabilities', (caps) => caps.length === 4);
    admin.send({ kind: 'capability/revoke', payload: { recipient: 'alice', grant_id: 'grant-1' } });
    await revoked;
    expect(alice.canSend('mcp/request', WRITE)).toBe(false);
  });

  it('does not acknowledge a grant meant for someone else', async () => {
    await participants.connect('bob');
    admin.send({ id: 'grant-bob', kind: 'capability/grant', to: ['bob'], payload: { recipient: 'bob', capabilities: [{ kind: 'chat' }] } });
    await nextEvent(alice.client, 'capability/grant', (e) => e.id === 'grant-bob');
    admin.send({ kind: 'chat', payload: { text: 'marker' } });
    await admin.next((f) => f.kind === 'chat' && f.payload.text === 'marker');
    expect(admin.received.some((f) => f.kind === 'capability/grant-ack')).toBe(false);
  });

  it('keeps the capabilities of others current from the grants and revocations it sees', async () => {
    const joined = nextEvent(alice, 'participant-join', (p) => p.id === 'bob');
    await participants.connect('bob');
    await joined;
    const grantSeen = nextEvent(alice.client, 'capability/grant');
    admin.send({ id: 'g-bob', kind: 'capability/grant', to: ['bob'], payload: { recipient: 'bob', capabilities: [{ kind: 'mcp/response' }] } });
    await grantSeen;
    expect(alice.participants.find((p) => p.id === 'bob')?.capabilities).toEqual([{ kind: 'chat' }, { kind: 'mcp/response' }]);
    const revokeSeen = nextEvent(alice.client, 'capability/revoke');
    admin.send({ kind: 'capability/revoke', payload: { recipient: 'bob', capabilities: [{ kind: 'mcp/*' }] } });
    await revokeSeen;
    expect(alice.participants.find((p) => p.id === 'bob')?.capabilities).toEqual([{ kind: 'chat' }]);
  });
});
