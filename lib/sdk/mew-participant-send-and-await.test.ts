import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { GatewayRefusalError, RequestTimeoutError } from './sdk-errors';
import { nextEvent, participantFactory, rejectionOf } from './testing';

const config = spaceConfig('await', {
  lead: [{ kind: 'space/invite' }, { kind: 'chat' }, { kind: 'mcp/proposal' }, { kind: 'mcp/reject' }, { kind: 'mcp/request' }],
  agent: [{ kind: 'mcp/proposal' }, { kind: 'chat' }],
});

describe('MEWParticipant.sendAndAwait and decisions: one answer to "what became of what I sent?"', () => {
  let gw: TestGateway;
  let lead: MEWParticipant;
  const participants = participantFactory('await', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    lead = await participants.connect('lead', { autoDiscovery: false });
  });
  afterEach(async () => {
    vi.useRealTimers();
    participants.disconnectAll();
    await gw.close();
  });

  it('resolves with my echo when no reply kind is asked for: the gateway accepted and routed it', async () => {
    const { envelope, reply } = lead.sendAndAwait({ kind: 'chat', payload: { text: 'hi' } }, { replyKinds: [], timeoutMs: 3000 });
    expect(await reply).toMatchObject({ id: envelope.id, from: 'lead', cursor: expect.any(String) });
  });

  it('resolves with the first correlated reply of the kinds asked for', async () => {
    const { reply } = lead.sendAndAwait({ kind: 'space/invite', payload: { participant_id: 'guest' } }, { replyKinds: ['space/invite-ack'], timeoutMs: 3000 });
    expect((await reply).payload).toMatchObject({ participant_id: 'guest', token: expect.any(String) });
  });

  it('rejects with the gateway’s refusal, naming the refusal envelope, and never resolves on it', async () => {
    const agent = await participants.connect('agent', { autoDiscovery: false });
    const { envelope, reply } = agent.sendAndAwait(
      { kind: 'capability/grant', payload: { recipient: 'lead', capabilities: [{ kind: 'chat' }] } },
      { replyKinds: [], timeoutMs: 3000 },
    );
    const error = await rejectionOf(reply);
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error).toMatchObject({ code: 'capability_violation', envelopeId: expect.any(String) });
    expect((error as GatewayRefusalError).envelopeId).not.toBe(envelope.id);
  });

  it('times out when nothing answers', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const { reply } = lead.sendAndAwait({ kind: 'chat', payload: { text: 'anyone?' } }, { replyKinds: ['chat/acknowledge'], timeoutMs: 60_000 });
    const timedOut = rejectionOf(reply);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await timedOut).toBeInstanceOf(RequestTimeoutError);
  });

  it('decides a proposal it saw only through a catch-up, the explanation following the reject', async () => {
    const agent = await participants.connect('agent', { autoDiscovery: false });
    lead.disconnect();
    const proposal = agent.send({ kind: 'mcp/proposal', to: ['lead'], payload: { method: 'tools/call', params: { name: 'x' } } });
    await nextEvent(agent.client, 'mcp/proposal', (e) => e.id === proposal.id);
    const late = await participants.connect('lead', { autoDiscovery: false, catchUp: 'retained' });
    expect(late.proposals.pending().map((p) => p.id)).toEqual([proposal.id]);
    const explained = nextEvent(agent.client, 'chat', (e) => e.payload.text === 'not today');
    const rejection = late.proposals.reject(proposal.id, 'unsafe', 'not today');
    expect(await rejection.outcome).toMatchObject({ id: rejection.envelope.id, kind: 'mcp/reject' });
    expect(late.proposals.get(proposal.id)?.state).toBe('rejected');
    expect((await explained).correlation_id).toEqual([rejection.envelope.id]);
  });
});
