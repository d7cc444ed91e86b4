import { describe, expect, it } from 'vitest';
import { applyEnvelope, applyEnvelopes, applyTick } from './apply-envelope';
import { matchesProposal, msUntilExpiry, orderedProposals, pendingProposals, proposalHistory } from './proposal-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { env, fulfilment, proposal, response, T0 } from './testing';

const NOW = T0 + 1_000;

function run(envelopes: StoreEnvelope[], options = {}): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human', ...options }, T0), envelopes, NOW);
}

describe('proposals', () => {
  it('keeps two proposals visible, neither replacing the other, oldest first in the queue', () => {
    const s = run([
      proposal('p-1', 'untrusted-agent', 'target-agent', 'write_file', { path: 'a.txt' }, 0),
      proposal('p-2', 'untrusted-agent', 'target-agent', 'write_file', { path: 'b.txt' }, 500),
    ]);
    expect(pendingProposals(s).map((p) => p.id)).toEqual(['p-1', 'p-2']);
    expect(s.proposals.byId.get('p-1')!).toMatchObject({
      proposer: 'untrusted-agent',
      target: 'target-agent',
      method: 'tools/call',
      toolName: 'write_file',
      arguments: { path: 'a.txt' },
      at: T0,
      state: 'pending',
    });
  });

  it('ignores a second proposal envelope with the same id (never replaced)', () => {
    const s = run([proposal('p-1', 'a', 't', 'one', {}, 0)]);
    const again = applyEnvelope(s, { ...proposal('p-1', 'a', 't', 'two', {}, 10) }, NOW);
    expect(again.proposals.byId.get('p-1')!.toolName).toBe('one');
  });

  it('follows the spec §3.2.1 chain: fulfilled by someone else, then completed with the result', () => {
    let s = run([proposal('env-req-1', 'untrusted-agent', 'target-agent', 'dangerous_operation', { target: 'production' })]);
    s = applyEnvelope(s, fulfilment('env-fulfill-1', 'orchestrator', 'target-agent', 'env-req-1', 'dangerous_operation', { target: 'production' }, 100), NOW);
    expect(s.proposals.byId.get('env-req-1')!).toMatchObject({
      state: 'fulfilled',
      fulfilment: { id: 'env-fulfill-1', by: 'orchestrator', edited: false },
    });
    const result = { content: [{ type: 'text', text: 'Operation completed successfully' }] };
    s = applyEnvelope(s, response('env-fulfill-resp-1', 'target-agent', 'orchestrator', 'env-fulfill-1', { result }, 200), NOW);
    const p = s.proposals.byId.get('env-req-1')!;
    expect(p.state).toBe('completed');
    expect(p.outcome).toMatchObject({ responseId: 'env-fulfill-resp-1', from: 'target-agent', result, isError: false });
    expect(pendingProposals(s)).toEqual([]);
    expect(proposalHistory(s).map((x) => x.id)).toEqual(['env-req-1']);
  });

  it('names the approval rule that decided, and a rule named in _meta is no edit', () => {
    const rule = { id: 'r-1', version: 3, name: 'notes' };
    const approved = fulfilment('f', 'rules', 'fs', 'p', 'write_file', { path: 'a.txt' }, 10);
    approved.payload = { ...(approved.payload as object), params: { name: 'write_file', arguments: { path: 'a.txt' }, _meta: { 'mew/rule': rule } } };
    let s = run([proposal('p', 'agent', 'fs', 'write_file', { path: 'a.txt' }), approved]);
    expect(s.proposals.byId.get('p')!.fulfilment).toMatchObject({ by: 'rules', edited: false, rule });

    s = run([
      proposal('q', 'agent', 'fs', 'write_file', { path: 'b.txt' }),
      env({ id: 'rej', from: 'rules', to: ['agent'], kind: 'mcp/reject', correlation_id: ['q'], payload: { reason: 'policy', rule } }),
    ]);
    expect(s.proposals.byId.get('q')!.rejections[0]).toMatchObject({ by: 'rules', reason: 'policy', rule });
  });

  it('marks a pending proposal urgent when an escalation chat names it, once', () => {
    const escalate = (id: string, at: number) =>
      env({ id, at, from: 'rules', kind: 'chat', correlation_id: ['p'], payload: { text: 'No one decided within 60 s', escalation: { waited_seconds: 60 } } });
    const s = run([proposal('p', 'agent', 'fs', 'write_file', { path: 'a.txt' }), escalate('e-1', 60_000), escalate('e-2', 70_000)]);
    expect(s.proposals.byId.get('p')!).toMatchObject({ state: 'pending', escalation: { id: 'e-1', by: 'rules', waitedSeconds: 60 } });
  });

  it('marks edit-then-approve fulfilments as edited', () => {
    const s = run([
      proposal('p', 'agent', 'fs', 'write_file', { path: 'a.txt', content: 'x' }),
      fulfilment('f', 'human', 'fs', 'p', 'write_file', { path: 'a.txt', content: 'y' }, 10),
    ]);
    expect(s.proposals.byId.get('p')!.fulfilment?.edited).toBe(true);
    expect(s.proposals.byId.get('p')!.fulfilment?.params).toEqual({ name: 'write_file', arguments: { path: 'a.txt', content: 'y' } });
  });

  it('fails on a response with an error or with result.isError', () => {
    const s = run([
      proposal('p-1', 'agent', 'fs', 'read', {}),
      proposal('p-2', 'agent', 'fs', 'read', {}),
      fulfilment('f-1', 'human', 'fs', 'p-1', 'read', {}, 10),
      fulfilment('f-2', 'human', 'fs', 'p-2', 'read', {}, 10),
      response('r-1', 'fs', 'human', 'f-1', { error: { code: -32601, message: 'no such tool' } }, 20),
      response('r-2', 'fs', 'human', 'f-2', { result: { isError: true, content: [{ type: 'text', text: 'ENOENT' }] } }, 20),
    ]);
    expect(s.proposals.byId.get('p-1')!).toMatchObject({ state: 'failed', outcome: { isError: true, error: { code: -32601, message: 'no such tool' } } });
    expect(s.proposals.byId.get('p-2')!).toMatchObject({ state: 'failed', outcome: { isError: true, result: { isError: true } } });
  });

  it('records a reject with its reason code and the follow-up chat explanation (spec §3.3.2–3.3.3)', () => {
    const s = run([
      proposal('env-req-1', 'untrusted-agent', 'filesystem-agent', 'write_file', {}),
      env({
        id: 'reject-789',
        at: 10,
        from: 'filesystem-agent',
        to: ['untrusted-agent'],
        correlation_id: ['env-req-1'],
        kind: 'mcp/reject',
        payload: { reason: 'unsafe' },
      }),
      env({
        id: 'chat-790',
        at: 20,
        from: 'filesystem-agent',
        to: ['untrusted-agent'],
        correlation_id: ['reject-789'],
        kind: 'chat',
        payload: { text: 'Exclusive file access needed; retry in 5 minutes.', format: 'plain' },
      }),
    ]);
    const p = s.proposals.byId.get('env-req-1')!;
    expect(p.state).toBe('rejected');
    expect(p.rejections).toEqual([
      {
        id: 'reject-789',
        by: 'filesystem-agent',
        at: T0 + 10,
        reason: 'unsafe',
        explanation: { id: 'chat-790', from: 'filesystem-agent', text: 'Exclusive file access needed; retry in 5 minutes.', at: T0 + 20 },
      },
    ]);
    expect(proposalHistory(s, 'exclusive')).toHaveLength(1);
    expect(proposalHistory(s, 'unsafe rejected')).toHaveLength(1);
  });

  it('ignores a withdraw from anyone but the proposer; the proposer withdraws', () => {
    let s = run([
      proposal('p', 'agent', 'fs', 'rm', {}),
      env({ id: 'w-1', at: 10, from: 'intruder', correlation_id: ['p'], kind: 'mcp/withdraw', payload: { reason: 'no_longer_needed' } }),
    ]);
    expect(s.proposals.byId.get('p')!.state).toBe('pending');
    expect(s.proposals.byId.get('p')!.withdrawal).toBeUndefined();
    s = applyEnvelope(s, env({ id: 'w-2', at: 20, from: 'agent', correlation_id: ['p'], kind: 'mcp/withdraw', payload: { reason: 'no_longer_needed' } }), NOW);
    expect(s.proposals.byId.get('p')!).toMatchObject({ state: 'withdrawn', withdrawal: { id: 'w-2', reason: 'no_longer_needed' } });
  });

  it('expires a pending proposal at tick past its deadline (never "rejected"), and a later fulfilment still moves it on', () => {
    let s = run([proposal('p', 'agent', 'fs', 'write_file', {}, 0, { timeout_ms: 30_000 })]);
    const p0 = s.proposals.byId.get('p')!;
    expect(p0).toMatchObject({ timeoutMs: 30_000, deadline: T0 + 30_000, deadlineSource: 'proposer' });
    expect(msUntilExpiry(p0, T0 + 10_000)).toBe(20_000);

    s = applyTick(s, T0 + 29_999);
    expect(s.proposals.byId.get('p')!.state).toBe('pending');
    s = applyTick(s, T0 + 30_000);
    expect(s.proposals.byId.get('p')!).toMatchObject({ state: 'expired', expiredAt: T0 + 30_000 });
    expect(s.proposals.byId.get('p')!.rejections).toEqual([]);
    expect(pendingProposals(s)).toEqual([]);

    s = applyEnvelope(s, fulfilment('f', 'human', 'fs', 'p', 'write_file', {}, 40_000), T0 + 40_000);
    expect(s.proposals.byId.get('p')!.state).toBe('fulfilled');
    s = applyEnvelope(s, response('r', 'fs', 'human', 'f', { result: { content: [] } }, 41_000), T0 + 41_000);
    expect(s.proposals.byId.get('p')!).toMatchObject({ state: 'completed', expiredAt: T0 + 30_000 });
  });

  it('reads expires_at, and falls back to a space’s own deadline when it sets one, else none (the default)', () => {
    const s = run([proposal('a', 'agent', 'fs', 't', {}, 0, { expires_at: '2025-08-26T14:01:00Z' }), proposal('b', 'agent', 'fs', 't', {}, 0)], {
      proposalTimeoutMs: 5 * 60_000,
    });
    expect(s.proposals.byId.get('a')!).toMatchObject({ deadline: T0 + 60_000, timeoutMs: 60_000, deadlineSource: 'proposer' });
    expect(s.proposals.byId.get('b')!).toMatchObject({ deadline: T0 + 5 * 60_000, deadlineSource: 'default' });
    expect(s.proposals.byId.get('b')!.timeoutMs).toBeUndefined();

    const off = run([proposal('c', 'agent', 'fs', 't', {})]);
    expect(off.proposals.byId.get('c')!.deadline).toBeUndefined();
    expect(applyTick(off, T0 + 10 * 3600_000).proposals.byId.get('c')!.state).toBe('pending');
  });

  it('orders pending first (oldest first), then the rest newest first', () => {
    const s = run([
      proposal('old-done', 'a', 't', 'x', {}, 0),
      proposal('pending-2', 'a', 't', 'x', {}, 300),
      proposal('new-done', 'a', 't', 'x', {}, 200),
      proposal('pending-1', 'a', 't', 'x', {}, 100),
      env({ id: 'rj-1', at: 400, from: 'h', kind: 'mcp/reject', correlation_id: ['old-done'], payload: { reason: 'policy' } }),
      env({ id: 'rj-2', at: 400, from: 'h', kind: 'mcp/reject', correlation_id: ['new-done'], payload: { reason: 'policy' } }),
    ]);
    expect(orderedProposals(s).map((p) => p.id)).toEqual(['pending-1', 'pending-2', 'new-done', 'old-done']);
    expect(orderedProposals(s)).toBe(orderedProposals(s)); // stable for useStore
  });

  it('searches by proposer, tool, argument JSON and state', () => {
    const s = run([proposal('p', 'code-agent', 'fs', 'write_file', { path: '/etc/hosts' }), proposal('q', 'other', 'fs', 'read_file', {})]);
    const p = s.proposals.byId.get('p')!;
    expect(matchesProposal(p, 'code-agent')).toBe(true);
    expect(matchesProposal(p, 'WRITE_FILE')).toBe(true);
    expect(matchesProposal(p, '/etc/hosts')).toBe(true);
    expect(matchesProposal(p, 'pending write')).toBe(true);
    expect(matchesProposal(p, 'read_file')).toBe(false);
    expect(matchesProposal(p, '')).toBe(true);
  });

  it('searches the masked text: never finds a proposal by the hidden part of a secret, finds it by what its card shows', () => {
    const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}wxyz9876`;
    const s = run([
      proposal('p-1', 'agent', 'tools', 'deploy', { repo: 'acme/site', token: TOKEN, password: 'hunter2-longer' }, 0),
      env({ id: 'rej-1', at: 5, from: 'human', to: ['agent'], correlation_id: ['p-1'], kind: 'mcp/reject', payload: { reason: 'unsafe' } }),
      env({ id: 'why-1', at: 6, from: 'human', to: ['agent'], correlation_id: ['rej-1'], kind: 'chat', payload: { text: `never paste ${TOKEN} again` } }),
    ]);
    const ids = (query: string) => proposalHistory(s, query).map((p) => p.id);
    // In its arguments (free text and a secret-named field) and in its reject's explanation.
    expect(ids(TOKEN.slice(8, 20))).toEqual([]);
    expect(ids(TOKEN)).toEqual([]);
    expect(ids('hunter2')).toEqual([]);
    expect(ids(`acme ${TOKEN.slice(10, 16)}`)).toEqual([]);

    expect(ids('')).toEqual(['p-1']);
    expect(ids('acme/site deploy')).toEqual(['p-1']);
    expect(ids(`ghp_…${TOKEN.slice(-4)}`)).toEqual(['p-1']);
    expect(ids('never paste unsafe')).toEqual(['p-1']);
    const p = s.proposals.byId.get('p-1')!;
    expect(matchesProposal(p, '   ')).toBe(true);
    expect(matchesProposal(p, 'AGENT rejected')).toBe(true);
    expect(proposalHistory(s, 'acme')).toBe(proposalHistory(s, 'acme'));
  });

  it('resolves risk from the target tools list, also when the list arrives after the proposal', () => {
    const toolsList = [
      env({ id: 'list-1', at: 0, from: 'human', to: ['fs'], kind: 'mcp/request', payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }),
      response(
        'list-1-resp',
        'fs',
        'human',
        'list-1',
        {
          result: {
            tools: [
              {
                name: 'write_file',
                description: 'Write',
                inputSchema: { type: 'object' },
                security: { risk_level: 'dangerous', confirmation_required: true, side_effects: ['filesystem'] },
              },
            ],
          },
        },
        5,
      ),
    ];
    const before = run([proposal('p', 'agent', 'fs', 'write_file', {}, 10), ...toolsList]);
    const after = run([...toolsList, proposal('p', 'agent', 'fs', 'write_file', {}, 10)]);
    for (const s of [before, after]) {
      expect(s.proposals.byId.get('p')!.risk).toEqual({
        risk_level: 'dangerous',
        confirmation_required: true,
        side_effects: ['filesystem'],
        source: 'security',
      });
    }
  });

  it('keeps pending proposals when the cap drops settled ones', () => {
    const envelopes: StoreEnvelope[] = [proposal('keep', 'a', 't', 'x', {}, 0)];
    for (let i = 0; i < 5; i++) {
      envelopes.push(proposal(`p-${i}`, 'a', 't', 'x', {}, 10 + i));
      envelopes.push(env({ id: `rj-${i}`, at: 20 + i, from: 'h', kind: 'mcp/reject', correlation_id: [`p-${i}`], payload: {} }));
    }
    const s = run(envelopes, { proposalCap: 3 });
    expect([...s.proposals.byId.keys()]).toContain('keep');
    expect([...s.proposals.byId.keys()]).toHaveLength(3);
    expect([...s.proposals.byRejection.values()].every((id) => s.proposals.byId.has(id))).toBe(true);
    expect(s.proposals.byRejection.size).toBe(2);
  });
});
