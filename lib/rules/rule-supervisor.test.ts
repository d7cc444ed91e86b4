import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import { approvalRuleInputSchema, type ApprovalRule, type ApprovalRuleInput, type RuleEventType } from '../rules/approval-rule';
import type { RuleOutcome } from '../rules/rule-engine';
import type { MEWParticipant } from '../sdk/mew-participant';
import { ProposalRejectedError } from '../sdk/sdk-errors';
import { participantFactory, rejectionOf } from '../sdk/testing';
import { ESCALATION_LEAD_MS, RuleSupervisor, timeoutSchedule, type RuleSupervisorOptions } from './rule-supervisor';

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
  const events: [string, RuleEventType, string][] = [];

  async function startSupervisor(options: Partial<RuleSupervisorOptions> = {}) {
    const started = new RuleSupervisor({
      gateway: gw.wsUrl(),
      space: SPACE,
      token: tokenOf('rules'),
      rules: () => rules,
      onDecision: (_p, outcome) => decisions.push(outcome),
      onRuleEvent: (r, event, proposal) => events.push([r.name, event, proposal.id]),
      ...options,
    });
    await started.connect();
    return started;
  }

  beforeEach(async () => {
    gw = await startTestGateway(
      spaceConfig(
        SPACE,
        {
          lead: [{ kind: '*' }],
          agent: [{ kind: ['mcp/proposal', 'mcp/withdraw', 'mcp/response', 'chat'] }],
          tools: [{ kind: 'mcp/response' }],
          rules: [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }],
        },
        { automation: { supervisor: 'rules' } },
      ),
    );
    participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({
      name: 'note_down',
      security: { risk_level: 'moderate' },
      execute: ({ text }) => (calls.push(String(text)), `Noted: ${String(text)}`),
    });
    tools.tools.register({ name: 'wipe', security: { risk_level: 'dangerous', confirmation_required: true }, execute: () => (calls.push('wipe'), 'wiped') });
    // Tools that declare MCP annotations and no MGP security, as most MCP servers' tools do.
    for (const [name, annotations] of [
      ['peek', { readOnlyHint: true }],
      ['tidy', { readOnlyHint: false, destructiveHint: false }],
      ['shred', { readOnlyHint: false, destructiveHint: true }],
    ] as const) {
      tools.tools.register({ name, annotations, execute: ({ text }) => (calls.push(`${name} ${String(text)}`), `${name}: ${String(text)}`) });
    }
    await tools.connect();
    rules = [];
    decisions.length = 0;
    calls.length = 0;
    events.length = 0;
    supervisor = await startSupervisor();
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

  it('weighs a tool that declares only MCP annotations as the bridge does: an ordinary approve rule approves read-only and non-destructive ones, not destructive ones', async () => {
    rules.push(rule({ name: 'agent, nothing dangerous', decision: 'approve', match: { proposer: 'agent' } }));
    supervisor.reload();
    expect(await propose('peek', 'a')).toMatchObject({ content: [{ text: 'peek: a' }] });
    expect(await propose('tidy', 'b')).toMatchObject({ content: [{ text: 'tidy: b' }] });
    const shredding = propose('shred', 'c');
    await expect.poll(() => decisions.length).toBe(3);
    expect(decisions.at(-1)?.decision).toBe('none'); // dangerous and confirm-first, from destructiveHint
    expect(calls).toEqual(['peek a', 'tidy b']);
    agent.disconnect();
    await shredding.catch(() => undefined);
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

  it('names the rule and version on each decision: the space sees it, and the audit records it for the supervisor only', async () => {
    rules.push({ ...rule({ name: 'notes', decision: 'approve', match: { tool: 'note_down', arguments: { text: 'ok*' } } }), version: 3 });
    rules.push(rule({ name: 'no drafts', decision: 'reject', reason: 'drafts stay local', match: { tool: 'note_down', arguments: { text: 'draft*' } } }));
    supervisor.reload();
    const lead = await participants.connect('lead', { autoDiscovery: false });
    const seen = new Set<string>();
    lead.on('proposal', (p) => seen.add(p.id));
    await propose('note_down', 'ok then');
    await rejectionOf(propose('note_down', 'draft one'));
    const [approved, rejected] = [...seen];
    await expect.poll(() => lead.proposals.get(rejected)?.rejections.length).toBe(1);
    expect(lead.proposals.get(approved)!.fulfilment).toMatchObject({ by: 'rules', edited: false, rule: { id: rules[0].id, version: 3, name: 'notes' } });
    expect(lead.proposals.get(rejected)!.rejections[0]).toMatchObject({
      by: 'rules',
      reason: 'drafts stay local',
      rule: { id: rules[1].id, version: 1, name: 'no drafts' },
    });
    await expect
      .poll(() => gw.audit.query({ space: SPACE, type: ['PROPOSAL_FULFILLED', 'PROPOSAL_REJECTED'] }).map((e) => [e.type, e.actor, e.details.rule]))
      .toEqual([
        ['PROPOSAL_FULFILLED', 'rules', { id: rules[0].id, version: 3, name: 'notes' }],
        ['PROPOSAL_REJECTED', 'rules', { id: rules[1].id, version: 1, name: 'no drafts' }],
      ]);
    expect(events).toEqual([
      ['notes', 'hit', approved],
      ['no drafts', 'hit', rejected],
    ]);

    // Anyone else naming a rule on a decision is not taken at its word.
    rules.length = 0;
    supervisor.reload();
    const waiting = propose('note_down', 'by hand');
    await expect.poll(() => lead.proposals.pending().length).toBe(1);
    const [mine] = lead.proposals.pending();
    await lead.proposals.fulfil(mine.id, {
      call: { method: 'tools/call', params: { ...(mine.params as object), _meta: { 'mew/rule': { id: 'forged', version: 1, name: 'forged' } } } },
    }).outcome;
    await waiting;
    await expect.poll(() => gw.audit.query({ space: SPACE, type: ['PROPOSAL_FULFILLED'] }).length).toBe(2);
    expect(gw.audit.query({ space: SPACE, type: ['PROPOSAL_FULFILLED'] }).find((e) => e.actor === 'lead')?.details.rule).toBeUndefined();
  });

  it('flags a shadow rule that would have approved what a human then rejected', async () => {
    rules.push(rule({ name: 'trial', decision: 'approve', mode: 'shadow', match: { tool: 'note_down' } }));
    supervisor.reload();
    const lead = await participants.connect('lead', { autoDiscovery: false });
    const pending = rejectionOf(propose('note_down', 'risky'));
    await expect.poll(() => lead.proposals.pending().length).toBe(1);
    const [proposal] = lead.proposals.pending();
    lead.proposals.reject(proposal.id, 'unsafe');
    await pending;
    await expect
      .poll(() => events)
      .toEqual([
        ['trial', 'shadow_hit', proposal.id],
        ['trial', 'shadow_conflict', proposal.id],
      ]);
  });

  it('rejects with reason timeout, or escalates, what nobody decides in time (by risk level, or the ask rule’s own timeout)', async () => {
    supervisor.disconnect();
    supervisor = await startSupervisor({
      timeouts: { moderate: { after_seconds: 0.2, action: 'reject' }, dangerous: { after_seconds: 0.2, action: 'escalate' } },
    });
    const lead = await participants.connect('lead', { autoDiscovery: false });
    const timedOut = await rejectionOf(propose('note_down', 'no one looks'));
    expect(timedOut).toMatchObject({ rejectedBy: 'rules', reason: 'timeout' });

    const urgent = propose('wipe', 'everything');
    await expect.poll(() => lead.proposals.pending()[0]?.escalation?.waitedSeconds).toBe(0.2);
    expect(lead.proposals.pending()[0].state).toBe('pending');
    // An escalation is no new proposal: it is not put to the rules again.
    expect(decisions).toHaveLength(2);

    // An ask rule's own timeout wins over the risk level's.
    rules.push(
      rule({ name: 'ask about lists', decision: 'ask', match: { arguments: { text: 'list*' } }, timeout: { after_seconds: 0.2, action: 'escalate' } }),
    );
    supervisor.reload();
    const asked = propose('note_down', 'list it');
    await expect.poll(() => lead.proposals.pending().find((p) => p.arguments && (p.arguments as { text: string }).text === 'list it')?.escalation).toBeTruthy();
    agent.disconnect();
    await Promise.all([urgent, asked].map((p) => p.catch(() => undefined)));
  });

  it('escalates before the proposer’s own deadline, with time left to act, when the policy would come too late', async () => {
    supervisor.disconnect();
    supervisor = await startSupervisor({ timeouts: { dangerous: { after_seconds: 30, action: 'escalate' } } });
    const lead = await participants.connect('lead', { autoDiscovery: false });
    // The agent withdraws after 1.2 s: the escalation comes at half of that, not 30 s later.
    const urgent = agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'wipe', arguments: { text: 'soon' } } }, 1_200);
    await expect.poll(() => lead.proposals.pending()[0]?.escalation?.waitedSeconds, { timeout: 1_100 }).toBe(0.6);
    const [proposal] = lead.proposals.pending();
    expect(proposal).toMatchObject({ state: 'pending', timeoutMs: 1_200, deadlineSource: 'proposer' });
    expect(proposal.escalation?.text).toMatch(/withdraws it in \d s/);
    await urgent.catch(() => undefined);
  });
});

describe('timeoutSchedule', () => {
  const proposal = (timeoutMs?: number) => ({
    at: 1_000,
    timeoutMs,
    deadline: timeoutMs === undefined ? undefined : 1_000 + timeoutMs,
    deadlineSource: timeoutMs === undefined ? undefined : ('proposer' as const),
  });

  it('counts the policy from the proposal’s own time', () => {
    expect(timeoutSchedule(proposal(), { after_seconds: 120, action: 'escalate' })).toEqual({ at: 121_000, waitedSeconds: 120 });
    expect(timeoutSchedule(proposal(600_000), { after_seconds: 120, action: 'escalate' })).toEqual({ at: 121_000, waitedSeconds: 120 });
  });

  it('brings an escalation forward to leave a minute (or half a short timeout) before the proposer’s deadline', () => {
    // The demo's scribe: a 2-minute timeout against a 120 s escalation, which used to fire as it withdrew.
    expect(timeoutSchedule(proposal(120_000), { after_seconds: 120, action: 'escalate' })).toEqual({ at: 61_000, waitedSeconds: 60 });
    expect(timeoutSchedule(proposal(150_000), { after_seconds: 120, action: 'escalate' })).toEqual({ at: 91_000, waitedSeconds: 90 });
    expect(timeoutSchedule(proposal(20_000), { after_seconds: 120, action: 'escalate' })).toEqual({ at: 11_000, waitedSeconds: 10 });
    expect(ESCALATION_LEAD_MS).toBe(60_000);
  });

  it('leaves a reject where the policy puts it', () => {
    expect(timeoutSchedule(proposal(20_000), { after_seconds: 120, action: 'reject' })).toEqual({ at: 121_000, waitedSeconds: 120 });
  });
});
