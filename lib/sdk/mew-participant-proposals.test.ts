import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import {
  CapabilityDeniedError,
  GatewayRefusalError,
  McpError,
  MewSdkError,
  ProposalRejectedError,
  RequestCancelledError,
  RequestTimeoutError,
} from './sdk-errors';
import { leakyTransport, nextEvent, participantFactory, recordEvents, rejectionOf } from './testing';

const participantsConfig = {
  agent: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }, { kind: 'chat' }],
  human: [{ kind: 'mcp/request' }, { kind: 'mcp/reject' }, { kind: 'chat' }],
  calc: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  direct: [{ kind: 'mcp/request' }, { kind: 'chat' }],
  mallory: [{ kind: 'mcp/withdraw' }, { kind: 'mcp/response' }, { kind: 'chat' }],
  rawcalc: [{ kind: 'mcp/response' }],
  bystander: [{ kind: 'chat' }],
};

const ADD = { method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } };

describe('MEWParticipant.mcpRequest: direct requests and the proposal fallback', () => {
  let gw: TestGateway;
  let agent: MEWParticipant;
  let human: MEWParticipant;
  let calc: MEWParticipant;
  const participants = participantFactory('proposals', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(spaceConfig('proposals', participantsConfig));
    calc = await participants.connect('calc');
    calc.tools.register({ name: 'add', execute: ({ a, b }) => Number(a) + Number(b) });
    human = await participants.connect('human', { autoDiscovery: false });
    agent = await participants.connect('agent');
    await vi.waitFor(() => expect(human.participants.map((p) => p.id)).toContain('agent'));
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('sends a direct mcp/request when my capabilities allow it and resolves with the result', async () => {
    const direct = await participants.connect('direct', { autoDiscovery: false });
    const seen = recordEvents(calc.client, 'mcp/request');
    expect(direct.canSend('mcp/request', { method: 'tools/call' })).toBe(true);
    expect(await direct.mcpRequest('calc', ADD, 5000)).toEqual({ content: [{ type: 'text', text: '3' }] });
    expect(seen.map((e) => e.from)).toEqual(['direct']);
  });

  it('rejects with McpError when the target answers with a JSON-RPC error', async () => {
    const direct = await participants.connect('direct');
    const error = await rejectionOf(direct.mcpRequest('calc', { method: 'tools/call', params: { name: 'missing' } }, 5000));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message: 'MCP error -32602: unknown tool: missing' });
  });

  it('falls back to mcp/proposal without mcp/request, and resolves when someone fulfils it', async () => {
    human.on('proposal', (p) => {
      if (p.state === 'pending') void human.proposals.fulfil(p.id).outcome;
    });
    const fulfilments = recordEvents(calc.client, 'mcp/request');
    expect(agent.canSend('mcp/request', ADD)).toBe(false);
    const proposalSeen = nextEvent(calc.client, 'mcp/proposal');
    expect(await agent.mcpRequest('calc', ADD, 5000)).toEqual({ content: [{ type: 'text', text: '3' }] });
    const proposal = await proposalSeen;
    // The proposal says how long I wait, so every approver counts down to my deadline (and the model expires it then).
    expect(proposal).toMatchObject({ from: 'agent', to: ['calc'], payload: { method: 'tools/call', params: ADD.params, timeout_ms: 5000 } });
    expect(fulfilments).toHaveLength(1);
    expect(fulfilments[0]).toMatchObject({ from: 'human', to: ['calc'], correlation_id: [proposal.id] });
    expect(human.proposals.pending()).toEqual([]);
  });

  it('lets the fulfiller edit the call before approving it', async () => {
    human.on('proposal', (p) => {
      if (p.state === 'pending')
        void human.proposals.fulfil(p.id, { call: { method: 'tools/call', params: { name: 'add', arguments: { a: 40, b: 2 } } } }).outcome;
    });
    expect(await agent.mcpRequest('calc', ADD, 5000)).toEqual({ content: [{ type: 'text', text: '42' }] });
  });

  it('fails fast on mcp/reject with the rejecter and reason', async () => {
    human.on('proposal', (p) => {
      if (p.state === 'pending') human.proposals.reject(p.id, 'unsafe');
    });
    const started = Date.now();
    const error = await rejectionOf(agent.mcpRequest('calc', ADD, 10_000));
    expect(error).toBeInstanceOf(ProposalRejectedError);
    expect(error.message).toBe('Proposal rejected by human: unsafe');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('puts a rejection’s explanation in the mcp/reject (for the record) and in a chat correlated to it (for the proposer)', async () => {
    const rejects = recordEvents(agent.client, 'mcp/reject');
    const chats = recordEvents(agent.client, 'chat');
    human.on('proposal', (p) => {
      if (p.state === 'pending') human.proposals.reject(p.id, 'unsafe', 'Not on a Friday.');
    });
    await rejectionOf(agent.mcpRequest('calc', ADD, 10_000));
    expect(rejects[0]).toMatchObject({ from: 'human', payload: { reason: 'unsafe', explanation: 'Not on a Friday.' } });
    await vi.waitFor(() => expect(chats.find((c) => c.correlation_id?.includes(rejects[0].id))?.payload).toMatchObject({ text: 'Not on a Friday.' }));
  });

  it('withdraws its proposal when it times out, and observers see it withdrawn by the proposer', async () => {
    // Observers expire it at the deadline the proposal carries, and the proposer's withdrawal follows (either order).
    const decided = nextEvent(human, 'proposal', (p) => p.state === 'withdrawn');
    const error = await rejectionOf(agent.mcpRequest('calc', ADD, 200));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.message).toMatch(/withdrawn.*timed out after 200 ms/);
    expect(await decided).toMatchObject({ state: 'withdrawn', proposer: 'agent', withdrawal: { reason: 'timeout' } });
  });

  it('withdraws a proposal no longer needed: mcp/withdraw correlated to it, and the waiting mcpRequest rejects', async () => {
    const decided = nextEvent(human, 'proposal', (p) => p.state !== 'pending');
    let proposalId = '';
    const result = rejectionOf(agent.mcpRequest('calc', ADD, 5000, { onSent: (sent) => (proposalId = sent.id) }));
    await nextEvent(human, 'proposal', (p) => p.id === proposalId);
    const echoed = nextEvent(agent.client, 'mcp/withdraw');
    const withdrawal = agent.withdraw(proposalId);
    expect(withdrawal).toMatchObject({ kind: 'mcp/withdraw', correlation_id: [proposalId], payload: { reason: 'no_longer_needed' } });
    const error = await result;
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe(`proposal ${proposalId} cancelled: withdrawn (no_longer_needed)`);
    expect(await decided).toMatchObject({ id: proposalId, state: 'withdrawn', withdrawal: { reason: 'no_longer_needed' } });
    await echoed;
    expect(() => agent.withdraw(proposalId)).toThrow(`${proposalId} is not a pending proposal of mine`);
  });

  it('refuses to withdraw a proposal that is not mine', async () => {
    const direct = await participants.connect('direct', { autoDiscovery: false });
    const pending = nextEvent(direct, 'proposal', (p) => p.state === 'pending');
    void agent.mcpRequest('calc', ADD, 5000).catch(() => undefined);
    const proposal = await pending;
    expect(() => direct.withdraw(proposal.id)).toThrow(MewSdkError);
    expect(() => direct.withdraw('no-such-proposal', 'timeout')).toThrow('no-such-proposal is not a pending proposal of mine');
  });

  it('ignores a withdrawal from anyone but the proposer, even one a gateway let through, so the proposal can still be fulfilled', async () => {
    // The gateway refuses such a withdrawal; one that did not is simulated by slipping it into the human's connection.
    const { transport, inject } = leakyTransport();
    human.disconnect();
    const watcher = await participants.connect('human', { autoDiscovery: false, transport });
    const pending = nextEvent(watcher, 'proposal', (p) => p.state === 'pending');
    const result = agent.mcpRequest('calc', ADD, 5000);
    const proposal = await pending;
    const forged = { protocol: 'mew/v0.4', id: 'forged-withdraw', ts: new Date().toISOString(), from: 'mallory', kind: 'mcp/withdraw' };
    inject(JSON.stringify({ ...forged, correlation_id: [proposal.id], payload: { reason: 'no_longer_needed' } }));
    expect(watcher.proposals.pending().map((p) => p.id)).toEqual([proposal.id]);
    await watcher.proposals.fulfil(proposal.id).outcome;
    expect(await result).toEqual({ content: [{ type: 'text', text: '3' }] });
  });

  it('expires a proposal past the model’s deadline as the control room does: a proposal event says so, pending() drops it, fulfil refuses', async () => {
    const strict = await participants.connect('human', { autoDiscovery: false, spaceModel: { proposalTimeoutMs: 300 } });
    const pending = nextEvent(strict, 'proposal', (p) => p.state === 'pending');
    // A proposal that names no timeout of its own (mcpRequest's always do): the model's deadline applies.
    agent.send({ kind: 'mcp/proposal', to: ['calc'], payload: ADD });
    const { id } = await pending;
    expect(strict.proposals.pending().map((p) => p.id)).toEqual([id]);
    expect(await nextEvent(strict, 'proposal', (p) => p.id === id && p.state !== 'pending')).toMatchObject({ state: 'expired', deadlineSource: 'default' });
    expect(strict.proposals.pending()).toEqual([]);
    expect(() => strict.proposals.fulfil(id)).toThrow(`proposal ${id} is already expired`);
    agent.send({ kind: 'mcp/withdraw', correlation_id: [id], payload: { reason: 'no_longer_needed' } });
  });

  it('sends one decision per proposal: while the gateway has not answered it, a second fulfil or reject is refused', async () => {
    const pending = nextEvent(human, 'proposal', (p) => p.state === 'pending');
    const result = agent.mcpRequest('calc', ADD, 5000);
    const { id } = await pending;
    const first = human.proposals.fulfil(id);
    expect(human.proposals.sentDecision(id)).toBe(first.envelope);
    expect(() => human.proposals.fulfil(id)).toThrow(`my mcp/request on proposal ${id} awaits the gateway's answer`);
    expect(() => human.proposals.reject(id, 'unsafe')).toThrow(MewSdkError);
    expect(await result).toEqual({ content: [{ type: 'text', text: '3' }] });
    await vi.waitFor(() => expect(human.proposals.get(id)?.state).toBe('completed'));
    expect(human.proposals.sentDecision(id)).toBeUndefined();
  });

  it('rejects with CapabilityDeniedError when neither a request nor a proposal is allowed', async () => {
    const bystander = await participants.connect('bystander');
    await expect(bystander.mcpRequest('calc', ADD, 1000)).rejects.toBeInstanceOf(CapabilityDeniedError);
  });

  it('accepts the answer only from the request’s target, not from another participant holding mcp/response', async () => {
    const direct = await participants.connect('direct', { autoDiscovery: false });
    const rawcalc = await joinAs(gw, tokenOf('rawcalc'), 'space=proposals');
    const mallory = await joinAs(gw, tokenOf('mallory'), 'space=proposals');
    const result = direct.mcpRequest('rawcalc', ADD, 5000);
    const request = await rawcalc.kind('mcp/request');
    mallory.send({ kind: 'mcp/response', to: ['direct'], correlation_id: [request.id], payload: { jsonrpc: '2.0', id: request.payload.id, result: 'forged' } });
    await nextEvent(direct.client, 'mcp/response', (e) => e.from === 'mallory');
    rawcalc.send({
      kind: 'mcp/response',
      to: ['direct'],
      correlation_id: [request.id],
      payload: { jsonrpc: '2.0', id: request.payload.id, result: 'genuine' },
    });
    expect(await result).toBe('genuine');
  });
});

describe('MEWParticipant.mcpRequest: gateway refusals', () => {
  let gw: TestGateway;
  let flooder: TestClient;
  const participants = participantFactory('strict', () => gw.wsUrl(), tokenOf);
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('fails fast with the gateway’s system/error correlated to the request', async () => {
    gw = await startTestGateway(
      spaceConfig(
        'strict',
        { direct: [{ kind: 'mcp/request' }, { kind: 'chat' }], calc: [{ kind: 'mcp/response' }] },
        {
          limits: { rate_per_second: 0.5, rate_burst: 2 },
        },
      ),
    );
    flooder = await joinAs(gw, tokenOf('calc'), 'space=strict');
    // Without retries: a rate-limited envelope is refused at once (retries are MEWClient's, tested there).
    const direct = await participants.connect('direct', { autoDiscovery: false, rateLimitRetries: 0 });
    direct.chat.send('one');
    direct.chat.send('two'); // the burst is spent
    const started = Date.now();
    const error = await rejectionOf(direct.mcpRequest('calc', ADD, 10_000));
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error.code).toBe('rate_limited');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(flooder.received.some((f) => f.kind === 'mcp/request')).toBe(false);
  });
});
