import { afterEach, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from '../sdk/mew-participant';
import { participantFactory } from '../sdk/testing';
import type { RunningRules } from './rules-feature';

// Rules work everywhere: a single-process gateway runs a rule supervisor in every space (the gateway adds the
// participant when the config names none), and refuses rules where its config turns the supervisor off.

const AGENT = [{ kind: ['mcp/proposal', 'mcp/withdraw', 'chat'] }];
const TOOLS = [{ kind: 'mcp/response' }];
const NOTE_RULE = { name: 'agent notes', decision: 'approve', match: { proposer: 'agent', tool: 'note_down' } };

describe('rule supervision of every space', () => {
  let gw: TestGateway | undefined;
  let participants: ReturnType<typeof participantFactory> | undefined;
  afterEach(async () => {
    participants?.disconnectAll();
    await gw?.close();
    gw = participants = undefined;
  });

  const rulesApi = (space: string, init: RequestInit = {}) =>
    fetch(gw!.httpUrl(`/api/spaces/${space}/rules`), { ...init, headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' } });

  async function agentAndTools(space: string, calls: string[]): Promise<MEWParticipant> {
    participants = participantFactory(space, () => gw!.wsUrl(), tokenOf);
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({
      name: 'note_down',
      security: { risk_level: 'moderate' },
      execute: ({ text }) => (calls.push(String(text)), `Noted: ${String(text)}`),
    });
    await tools.connect();
    return participants.connect('agent', { autoDiscovery: false });
  }

  it('decides the next matching proposal by a rule posted in a space whose config has no automation section', async () => {
    gw = await startTestGateway(spaceConfig('plain', { lead: [{ kind: '*' }], agent: AGENT, tools: TOOLS }));
    const { supervision } = gw.host('plain').feature<RunningRules>('rules')!;
    // It joins only once the space has a rule: a space without rules pays nothing for it.
    expect([supervision?.participant, supervision?.running]).toEqual(['rules', false]);
    const calls: string[] = [];
    const agent = await agentAndTools('plain', calls);
    expect(gw.gateway.spaces.get('plain')!.participants.get('rules')!.online).toBe(false);

    const created = await rulesApi('plain', { method: 'POST', body: JSON.stringify(NOTE_RULE) });
    expect(created.status).toBe(201);
    // Answered once the supervisor joined: the very next proposal is decided.
    expect(gw.gateway.spaces.get('plain')!.participants.get('rules')!.online).toBe(true);
    expect((await (await rulesApi('plain')).json()).supervisor).toBe('rules');
    const result = await agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: 'ship it' } } }, 10_000);
    expect(result).toMatchObject({ content: [{ text: 'Noted: ship it' }] });
    expect(calls).toEqual(['ship it']);
    // The implicit supervisor decided it, in the rule's name, and holds no more than deciding takes.
    const [fulfilled] = gw.audit.query({ space: 'plain', type: ['PROPOSAL_FULFILLED'] });
    expect(fulfilled).toMatchObject({ actor: 'rules', details: { rule: { name: 'agent notes', version: 1 } } });
    expect(gw.gateway.spaces.get('plain')!.participants.get('rules')!.capabilities).toEqual([{ kind: ['mcp/request', 'mcp/reject', 'chat'] }]);
  });

  it('applies the first rule of a space to a proposal already waiting (as "approve for 1 hour" on its card does), once', async () => {
    gw = await startTestGateway(spaceConfig('plain', { lead: [{ kind: '*' }], agent: AGENT, tools: TOOLS }));
    const calls: string[] = [];
    const agent = await agentAndTools('plain', calls);
    const lead = await participants!.connect('lead', { autoDiscovery: false });
    // Decided by hand before any rule: the supervisor, joining later, must not decide it again.
    const handled = agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: 'by hand' } } }, 10_000);
    await expect.poll(() => lead.proposals.pending().length).toBe(1);
    await lead.proposals.fulfil(lead.proposals.pending()[0].id).outcome;
    await handled;
    const waiting = agent.mcpRequest('tools', { method: 'tools/call', params: { name: 'note_down', arguments: { text: 'waiting' } } }, 10_000);
    await expect.poll(() => lead.proposals.pending().length).toBe(1);

    expect((await rulesApi('plain', { method: 'POST', body: JSON.stringify(NOTE_RULE) })).status).toBe(201);
    expect(await waiting).toMatchObject({ content: [{ text: 'Noted: waiting' }] });
    expect(calls).toEqual(['by hand', 'waiting']);
    expect(gw.audit.query({ space: 'plain', type: ['PROPOSAL_FULFILLED'] }).map((e) => e.actor)).toEqual(['lead', 'rules']);
  });

  it('refuses a rule, with the reason, in a space whose config turns the supervisor off; listing and deleting still work', async () => {
    gw = await startTestGateway(spaceConfig('manual', { lead: [{ kind: '*' }], agent: AGENT }, { automation: { supervisor: false } }));
    expect(gw.host(gw.configs[0].id).feature<RunningRules>('rules')!.supervision).toBeUndefined();
    expect(gw.gateway.spaces.get('manual')!.participants.has('rules')).toBe(false);

    const refused = await rulesApi('manual', { method: 'POST', body: JSON.stringify(NOTE_RULE) });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: 'no_rule_supervisor',
      message: expect.stringMatching(/runs no rule supervisor \(its config sets automation\.supervisor: false\)/),
    });
    const edit = await fetch(gw.httpUrl('/api/spaces/manual/rules/some-rule'), {
      method: 'PUT',
      body: JSON.stringify(NOTE_RULE),
      headers: { Authorization: `Bearer ${tokenOf('lead')}`, 'Content-Type': 'application/json' },
    });
    expect([edit.status, (await edit.json()).error]).toEqual([409, 'no_rule_supervisor']);
    expect(await (await rulesApi('manual')).json()).toEqual({ rules: [], supervisor: null });
    expect(gw.audit.query({ space: 'manual', type: ['RULE_CREATED'] })).toEqual([]);
  });
});
