import { describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import { PROPOSAL_TIMEOUT_MS } from './model/store-defaults';
import { ParticipantModel } from './participant-model';

let seq = 0;
function envelope(kind: string, from: string, extra: Record<string, unknown> = {}): AnyEnvelope {
  return { protocol: 'mew/v0.4', id: `e${++seq}`, ts: '2025-01-01T00:00:00Z', from, kind, payload: {}, ...extra } as AnyEnvelope;
}
const proposal = (from = 'agent') => envelope('mcp/proposal', from, { to: ['calc'], payload: { method: 'tools/call', params: { name: 'add' } } });
const welcome = (me: string, others: string[]) =>
  envelope('system/welcome', 'system:gateway', {
    to: [me],
    payload: {
      you: { id: me, capabilities: [{ kind: '*' }] },
      participants: others.map((id) => ({ id, capabilities: [{ kind: 'chat' }] })),
      active_streams: [],
    },
  });
const NOW = Date.parse('2025-01-01T00:00:01Z');

/** A model that knows it is `me`, in a space with `agent` and `calc`. */
function model(): ParticipantModel {
  const m = new ParticipantModel();
  m.observe(welcome('me', ['agent', 'calc']), NOW);
  return m;
}

describe('ParticipantModel: the space model’s reducers as the SDK’s views', () => {
  it('reports the proposals an envelope creates or moves along, with the model’s states', () => {
    const m = model();
    const p = proposal();
    expect(m.observe(p, NOW).proposals.map((x) => [x.id, x.state])).toEqual([[p.id, 'pending']]);
    const fulfilment = envelope('mcp/request', 'human', { to: ['calc'], correlation_id: [p.id], payload: { method: 'tools/call' } });
    expect(m.observe(fulfilment, NOW).proposals.map((x) => x.state)).toEqual(['fulfilled']);
    const result = envelope('mcp/response', 'calc', {
      to: ['human'],
      correlation_id: [fulfilment.id],
      payload: { jsonrpc: '2.0', id: 1, result: { content: [] } },
    });
    expect(m.observe(result, NOW).proposals.map((x) => x.state)).toEqual(['completed']);
    expect(m.proposal(p.id)?.fulfilment?.by).toBe('human');
  });

  it('keeps a decision: a later withdraw is recorded but does not undo a fulfilment', () => {
    const m = model();
    const p = proposal();
    m.observe(p, NOW);
    m.observe(envelope('mcp/request', 'human', { to: ['calc'], correlation_id: [p.id], payload: { method: 'tools/call' } }), NOW);
    const [changed] = m.observe(envelope('mcp/withdraw', 'agent', { correlation_id: [p.id] }), NOW).proposals;
    expect(changed).toMatchObject({ state: 'fulfilled', withdrawal: { id: expect.any(String) } });
  });

  it('counts a withdrawal only from the proposer, and leaves my own proposals out of the pending view', () => {
    const m = model();
    const p = proposal();
    m.observe(p, NOW);
    expect(m.observe(envelope('mcp/withdraw', 'mallory', { correlation_id: [p.id] }), NOW).proposals).toEqual([]);
    expect(m.observe(proposal('me'), NOW).proposals).toEqual([]);
    expect(m.pendingProposals().map((x) => x.id)).toEqual([p.id]);
  });

  it('queues chats addressed to me until I acknowledge them, counting my acknowledgement once, before its echo', () => {
    const m = model();
    const chat = envelope('chat', 'agent', { to: ['me'], payload: { text: 'ping' } });
    expect(m.observe(chat, NOW).chatQueue).toBe(true);
    expect(m.pendingChats().map((c) => c.text)).toEqual(['ping']);
    const ack = envelope('chat/acknowledge', 'me', { to: ['agent'], correlation_id: [chat.id], payload: { status: 'read' } });
    expect(m.sentReceipt(ack, NOW)).toBe(true);
    expect(m.pendingChats()).toEqual([]);
    expect(m.observe(ack, NOW).chatQueue).toBe(false); // the echo changes nothing
  });

  it('does not report a queue change for chats between others or my own', () => {
    const m = model();
    expect(m.observe(envelope('chat', 'agent', { to: ['calc'], payload: { text: 'overheard' } }), NOW).chatQueue).toBe(false);
    expect(m.observe(envelope('chat', 'me', { to: ['agent'], payload: { text: 'mine' } }), NOW).chatQueue).toBe(false);
    expect(m.observe(envelope('chat', 'agent', { payload: { text: 'to everyone' } }), NOW).chatQueue).toBe(false);
    expect(m.pendingChats()).toEqual([]);
  });

  it('knows the others, not me, and what each may send', () => {
    const m = model();
    expect(m.peers().map((p) => p.id)).toEqual(['agent', 'calc']);
    expect(m.allows('agent', { kind: 'chat' })).toBe(true);
    expect(m.allows('agent', { kind: 'participant/pause' })).toBe(false);
    expect(m.allows('me', { kind: 'chat' })).toBe(false);
    m.observe(envelope('system/presence', 'system:gateway', { payload: { event: 'leave', participant: { id: 'agent' } } }), NOW);
    expect(m.peer('agent')).toBeUndefined();
  });
});

describe('ParticipantModel: one configuration, so the SDK and the control room derive the same', () => {
  it('expires a proposal at the deadline the control room uses too: expired, not pending, told to onExpire', () => {
    const expired: string[] = [];
    const m = new ParticipantModel({ proposalTimeoutMs: 5 * 60_000 }, (proposals) => expired.push(...proposals.map((p) => `${p.id}:${p.state}`)));
    m.observe(welcome('me', ['agent', 'calc']), NOW);
    const p = proposal();
    m.observe(p, NOW);
    const deadline = m.proposal(p.id)!.deadline!;
    expect(deadline).toBe(Date.parse('2025-01-01T00:00:00Z') + 5 * 60_000);
    // By default no deadline of our own: only the proposer's counts.
    expect(PROPOSAL_TIMEOUT_MS).toBeNull();
    expect(m.nextExpiry).toBe(deadline);
    m.tick(deadline - 1);
    expect(m.pendingProposals().map((x) => x.id)).toEqual([p.id]);
    m.tick(deadline);
    expect(m.proposal(p.id)?.state).toBe('expired');
    expect(m.pendingProposals()).toEqual([]);
    expect(expired).toEqual([`${p.id}:expired`]);
    expect(m.nextExpiry).toBe(Infinity);
  });

  it('keeps what only a screen shows out of a model without `screen`, deriving the rest identically', () => {
    const lean = new ParticipantModel({ screen: false });
    const full = new ParticipantModel();
    const p = proposal();
    const status = envelope('participant/status', 'agent', { payload: { tokens: 1, messages_in_context: 0 } });
    for (const m of [lean, full]) for (const e of [welcome('me', ['agent', 'calc']), p, status]) m.observe(e, NOW);
    expect(lean.proposal(p.id)).toEqual(full.proposal(p.id));
    expect(lean.state.log.total).toBe(0);
    expect(lean.state.seen).toBeUndefined();
    expect(full.state.log.total).toBe(3);
    expect(full.state.telemetry.byParticipant.has('agent')).toBe(true);
  });
});
