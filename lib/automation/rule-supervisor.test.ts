import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import { approvalRuleInputSchema, type ApprovalRule, type ApprovalRuleInput } from '../rules/approval-rule';
import type { RuleOutcome } from '../rules/rule-engine';
import type { MEWParticipant } from '../sdk/mew-participant';
import { ProposalRejectedError } from '../sdk/sdk-errors';
import { participantFactory, rejectionOf } from '../sdk/testing';
import { RuleSupervisor } from './rule-supervisor';

const SPACE = 'auto';
let ids = 0;
const rule = (input: ApprovalRuleInput): ApprovalRule => ({
  ...approvalRuleInputSchema.parse(input),
  id: `rule-${++ids}`,
  version: 1,
  created_by: 'lead',
  created_at: new Date().toISOString(),
});

describe('RuleSupervisor', () => {
  let gw: TestGateway;
  let participants: ReturnType<typeof participantFactory>;
  let agent: MEWParticipant;
  let rules: ApprovalRule[];
  let supervisor: RuleSupervisor;
  const decisions: RuleOutcome[] = [];
  const calls: string[] = [];

  beforeEach(async () => {
    gw = await startTestGateway(
      spaceConfig(SPACE, {
        lead: [{ kind: '*' }],
        agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'mcp/response', 'chat'] }],
        tools: [{ kind: 'mcp/response' }],
        rules: [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }],
      }),
    );
    participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'note_down', security: { risk_level: 'moderate' }, execute: ({ text }) => (calls.push(String(text)), `Noted: ${String(text)}`) });
    tools.tools.register({ name: 'wipe', security: { risk_level: 'dangerous', confirmation_required: true }, execute: () => (calls.push('wipe'), 'wiped') });
    await tools.connect();
    rules = [];
    decisions.length = 0;
    calls.length = 0;
    supervisor = new RuleSupervisor({ gateway: gw.wsUrl(), space: SPACE, token: tokenOf('rules'), rules: () => rules, onDecision: (_p, outcome) => decisions.push(outcome) });
    await supervisor.connect();
    agent = await participants.connect('agent', { autoDiscovery: false });
  });
  afterEach(async () => {
    supervisor.disconnect();
    participants.disconnectAll();
    await gw.close();
  });

  const propose = (tool: string, text: string) => agent.mcpRequest('tools', { method: 'tools/call', params: { name: tool, arguments: { text } } }, 5_000);

  it('approves what an approve rule covers: the proposal is fulfilled, the tool runs and the agent gets the result', async () => {
    rules.push(rule({ name: 'notes', decision: 'approve', match: { proposer: 'agent', tool: 'note_down', arguments: { text: 'todo:*' } } }));
    supervisor.reload();
    expect(await propose('note_down', 'todo: ship it')).toMatchObject({ content: [{ text: 'Noted: todo: ship it' }] });
    expect(calls).toEqual(['todo: ship it']);
    expect(decisions.at(-1)).toMatchObject({ decision: 'approve', rule: { name: 'notes' } });
    // Outside the rule: nobody decides, so the proposal waits (withdrawn at the agent's timeout).
    const unmatched = propose('note_down', 'something else');
    await expect.poll(() => decisions.length).toBe(2);
    expect(decisions.at(-1)?.decision).toBe('none');
    agent.disconnect();
    await unmatched.catch(() => undefined);
  });

  it('rejects with the rule’s reason, and never approves a dangerous tool unless the rule allows it', async () => {
    rules.push(rule({ name: 'no wiping', decision: 'reject', reason: 'wipes need a human', match: { tool: 'wipe', arguments: { text: 'all' } } }));
    rules.push(rule({ name: 'anything', decision: 'approve', match: {} }));
    supervisor.reload();
    const rejected = await rejectionOf(propose('wipe', 'all'));
    expect(rejected).toBeInstanceOf(ProposalRejectedError);
    expect(rejected).toMatchObject({ rejectedBy: 'rules', reason: 'wipes need a human' });

    const dangerous = propose('wipe', 'some');
    await expect.poll(() => decisions.length).toBe(2);
    expect(decisions.at(-1)?.decision).toBe('none'); // "anything" steps aside for a dangerous tool
    expect(calls).toEqual([]);
    agent.disconnect();
    await dangerous.catch(() => undefined);
  });

  it('applies new rules to proposals already waiting', async () => {
    const waiting = propose('note_down', 'queued');
    await expect.poll(() => supervisor.participant.proposals.pending().length).toBe(1);
    rules.push(rule({ name: 'late', decision: 'approve', match: { tool: 'note_down' } }));
    supervisor.reload();
    expect(await waiting).toMatchObject({ content: [{ text: 'Noted: queued' }] });
  });

  it('lets shadow rules decide nothing while counting what they would have done', async () => {
    rules.push(rule({ name: 'trial', decision: 'approve', mode: 'shadow', match: { tool: 'note_down' } }));
    supervisor.reload();
    const pending = propose('note_down', 'maybe');
    await expect.poll(() => decisions.length).toBe(1);
    expect(decisions[0]).toMatchObject({ decision: 'none', shadow: [{ rule: { name: 'trial' }, decision: 'approve' }] });
    expect(calls).toEqual([]);
    agent.disconnect();
    await pending.catch(() => undefined);
  });
});
