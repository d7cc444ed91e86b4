import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decryptPush, startReceiver, testSubscriber, type TestReceiver } from '../notify/testing';
import { ApprovalRecorded } from '../sdk/mcp-request-tracker';
import { participantFactory, rejectionOf } from '../sdk/testing';
import { parseSpaceConfig } from './space-config';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type Frame, type TestClient, type TestGateway } from './testing';

// Two-person approval (issue #29): with `approvals: {dangerous: 2}` a proposed call of a dangerous tool runs only once
// two distinct participants (never the proposer) approved the same call, whatever clients send. Everything here goes
// through the real server: raw sockets where the wire matters, the SDK where its behaviour does.

const SPACE = 'quorum';
const TOOLS = [
  { name: 'write_file', security: { risk_level: 'dangerous', confirmation_required: true } },
  { name: 'read_file', security: { risk_level: 'safe' } },
  { name: 'deploy_site', security: { risk_level: 'safe' } },
  { name: 'stat' }, // declares no risk: counts as dangerous
] as const;

const config = (id = SPACE, approvals: unknown = { dangerous: 2, tools: { 'deploy_*': 3 } }) =>
  spaceConfig(
    id,
    {
      alice: [{ kind: '*' }],
      bob: [{ kind: '*' }],
      carol: [{ kind: '*' }],
      // The proposer may also call directly: its own fulfilment must still not count.
      agent: [{ kind: ['mcp/proposal', 'mcp/request', 'mcp/withdraw', 'chat'] }],
      tools: [{ kind: ['mcp/response', 'chat'] }],
    },
    { approvals },
  );

describe('two-person approval of dangerous tools, enforced by the gateway', () => {
  const open: TestGateway[] = [];
  let participants: ReturnType<typeof participantFactory> | undefined;
  afterEach(async () => {
    participants?.disconnectAll();
    participants = undefined;
    for (const gw of open.splice(0)) await gw.close();
  });

  /** A gateway with the tools participant serving TOOLS (counting each call) and alice, bob, carol and the agent on raw sockets. */
  async function start(options: { dataDir?: string; port?: number; approvals?: unknown } = {}) {
    const gw = await startGatewayWith({ configs: [config(SPACE, options.approvals)], dataDir: options.dataDir, port: options.port });
    open.push(gw);
    participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
    const calls: { tool: string; args: unknown; from: string }[] = [];
    const tools = participants.create('tools', { autoDiscovery: false });
    for (const tool of TOOLS) {
      tools.tools.register({ ...tool, execute: (args, context) => (calls.push({ tool: tool.name, args, from: context.from }), `did ${tool.name}`) });
    }
    await tools.connect();
    const [alice, bob, carol, agent] = await Promise.all(['alice', 'bob', 'carol', 'agent'].map((id) => joinAs(gw, tokenOf(id), `space=${SPACE}`)));
    return { gw, calls, alice, bob, carol, agent };
  }
  type Fixture = Awaited<ReturnType<typeof start>>;

  let ids = 0;
  const next = (prefix: string) => `${prefix}-${++ids}`;

  /** A `tools/list` of the tools participant routed in the space: the gateway learns each tool's risk from it. */
  async function listTools({ alice }: Fixture) {
    const id = next('list');
    alice.send({ id, kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id, method: 'tools/list' } });
    await alice.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === id);
  }

  async function propose({ agent, alice }: Fixture, tool: string, args: Record<string, unknown> = { path: 'a.txt' }) {
    const id = next('proposal');
    agent.send({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: tool, arguments: args } } });
    await alice.next((f) => f.id === id);
    return id;
  }

  /** Sends the fulfilling request (an approval); `id` is the request's envelope id. */
  function approve(client: TestClient, proposalId: string, tool: string, args: Record<string, unknown> = { path: 'a.txt' }, id = next('approval')) {
    client.send({
      id,
      kind: 'mcp/request',
      to: ['tools'],
      correlation_id: [proposalId],
      payload: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } },
    });
    return id;
  }

  const approvalFor = (client: TestClient, requestId: string) => client.next((f) => f.kind === 'system/approval' && f.payload.request_id === requestId);

  /** Everything routed before now has reached every client (each client receives in order): a chat from alice they all see. */
  async function settle({ alice, bob, carol, agent }: Fixture) {
    const id = next('marker');
    alice.send({ id, kind: 'chat', payload: { text: 'marker' } });
    for (const client of [alice, bob, carol, agent]) await client.next((f) => f.id === id);
  }

  const requestsSeen = (client: TestClient, id: string) => client.received.filter((f: Frame) => f.kind === 'mcp/request' && f.id === id).length;

  it('one approver, twice, does not run the tool; a second distinct one runs it exactly once; a third is refused', async () => {
    const fx = await start();
    const { gw, calls, alice, bob, carol } = fx;
    await listTools(fx);
    const proposal = await propose(fx, 'write_file');

    const first = approve(alice, proposal, 'write_file');
    // Everyone, the proposer included, is told "1 of 2: alice"; only alice gets her request back (her echo).
    const told = await approvalFor(bob, first);
    expect(told).toMatchObject({
      from: 'system:gateway',
      correlation_id: [proposal, first],
      payload: { proposal_id: proposal, request_id: first, required: 2, complete: false, edited: false, approvals: [{ by: 'alice', envelope_id: first }] },
    });
    expect((await approvalFor(fx.agent, first)).payload.approvals).toHaveLength(1);
    expect(await alice.next((f) => f.id === first)).toMatchObject({ kind: 'mcp/request', from: 'alice' });

    // Alice again, with a new request: counted once. And her first request sent again: the original comes back.
    const again = approve(alice, proposal, 'write_file');
    expect((await approvalFor(bob, again)).payload).toMatchObject({ complete: false, approvals: [{ by: 'alice', envelope_id: first }] });
    approve(alice, proposal, 'write_file', { path: 'a.txt' }, first);
    expect(await alice.next((f) => f.id === first)).toMatchObject({ kind: 'mcp/request' });
    await settle(fx);
    expect(calls).toEqual([]);
    expect(requestsSeen(bob, first) + requestsSeen(bob, again)).toBe(0);

    const second = approve(bob, proposal, 'write_file');
    const complete = await approvalFor(carol, second);
    expect(complete.payload).toMatchObject({ complete: true, approvals: [{ by: 'alice' }, { by: 'bob', envelope_id: second }] });
    // The completing request is routed to everyone, right after its announcement, and the tool answers it.
    expect(await carol.next((f) => f.id === second)).toMatchObject({ kind: 'mcp/request', from: 'bob' });
    await bob.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === second);
    expect(calls).toEqual([{ tool: 'write_file', args: { path: 'a.txt' }, from: 'bob' }]);

    const late = approve(carol, proposal, 'write_file');
    expect(await carol.kind('system/error')).toMatchObject({ correlation_id: [late], payload: { error: 'proposal_not_pending', proposal_id: proposal } });
    await settle(fx);
    expect(calls).toHaveLength(1);

    // Each approval is audited; the fulfilment names every approver, and only the routed request fulfilled it.
    gw.audit.flush();
    const approved = gw.audit.query({ space: SPACE, type: 'PROPOSAL_APPROVED', order: 'asc' });
    expect(approved.map((e) => [e.actor, e.envelope_id, e.details.counted, e.details.complete])).toEqual([
      ['alice', first, true, false],
      ['alice', again, false, false],
      ['bob', second, true, true],
    ]);
    expect(approved[2]).toMatchObject({ subject: 'agent', details: { trace_id: proposal, approvals: ['alice', 'bob'], required: 2, tool: 'write_file' } });
    expect(gw.audit.query({ space: SPACE, type: 'PROPOSAL_FULFILLED' })).toEqual([
      expect.objectContaining({ actor: 'bob', envelope_id: second, details: expect.objectContaining({ approvals: ['alice', 'bob'] }) }),
    ]);
    // A held request is alice's alone: in her history, not in anyone else's.
    const history = async (who: string) =>
      (
        (await (await fetch(gw.httpUrl(`/participants/${who}/messages?space=${SPACE}`), { headers: { Authorization: `Bearer ${tokenOf(who)}` } })).json()) as {
          messages: Frame[];
        }
      ).messages;
    expect((await history('alice')).some((m) => m.id === first)).toBe(true);
    expect((await history('bob')).some((m) => m.id === first)).toBe(false);
  });

  it('never counts the proposer, and does not add up approvals of different calls', async () => {
    const fx = await start();
    const { calls, alice, bob, agent } = fx;
    await listTools(fx);
    const proposal = await propose(fx, 'write_file');
    const own = approve(agent, proposal, 'write_file');
    expect((await approvalFor(alice, own)).payload).toMatchObject({ required: 2, complete: false, approvals: [] });

    // Alice approves it as proposed, bob an edited call: one approval each, neither runs.
    approve(alice, proposal, 'write_file');
    const edited = approve(bob, proposal, 'write_file', { path: 'b.txt' });
    expect((await approvalFor(alice, edited)).payload).toMatchObject({ complete: false, edited: true, approvals: [{ by: 'bob' }] });
    await settle(fx);
    expect(calls).toEqual([]);

    // Bob then approves the proposed call too: two distinct approvers of the same call.
    const same = approve(bob, proposal, 'write_file');
    expect((await approvalFor(alice, same)).payload).toMatchObject({ complete: true, edited: false, approvals: [{ by: 'alice' }, { by: 'bob' }] });
    await bob.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === same);
    expect(calls).toEqual([{ tool: 'write_file', args: { path: 'a.txt' }, from: 'bob' }]);
  });

  it('counts by the risk the tool lists (undeclared counts as dangerous), a tool pattern winning over the level', async () => {
    const fx = await start();
    const { calls, alice, bob, carol } = fx;
    await listTools(fx);
    // Safe: one approval, as ever, and nothing announced.
    const read = await propose(fx, 'read_file');
    const readApproval = approve(alice, read, 'read_file');
    await alice.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === readApproval);
    expect(alice.received.some((f) => f.kind === 'system/approval' && f.payload.proposal_id === read)).toBe(false);

    const stat = await propose(fx, 'stat');
    expect((await approvalFor(bob, approve(alice, stat, 'stat'))).payload).toMatchObject({ required: 2, complete: false });

    // deploy_* needs 3, though the tool lists itself safe.
    const deploy = await propose(fx, 'deploy_site');
    approve(alice, deploy, 'deploy_site');
    const byBob = approve(bob, deploy, 'deploy_site');
    expect((await approvalFor(carol, byBob)).payload).toMatchObject({ required: 3, complete: false, approvals: [{ by: 'alice' }, { by: 'bob' }] });
    await settle(fx);
    expect(calls.map((c) => c.tool)).toEqual(['read_file']);
    const byCarol = approve(carol, deploy, 'deploy_site');
    await carol.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === byCarol);
    expect(calls.map((c) => c.tool)).toEqual(['read_file', 'deploy_site']);
  });

  it('counts a rule as one approver at most: the rule supervisor approving twice still needs a person', async () => {
    const fx = await start();
    const { gw, calls, alice } = fx;
    await listTools(fx);
    const rules = (body: unknown) =>
      fetch(gw.httpUrl(`/api/spaces/${SPACE}/rules`), {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenOf('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const rule = { name: 'agent writes', decision: 'approve', allow_dangerous: true, match: { proposer: 'agent', tool: 'write_file' } };
    expect((await rules(rule)).status).toBe(201);
    const proposal = await propose(fx, 'write_file');
    const byRule = await alice.next((f) => f.kind === 'system/approval' && f.payload.proposal_id === proposal);
    expect(byRule.payload).toMatchObject({ required: 2, complete: false, approvals: [{ by: 'rules' }] });

    // A second rule makes the supervisor decide what is pending again: it does not approve twice.
    expect((await rules({ ...rule, name: 'agent writes, again' })).status).toBe(201);
    await settle(fx);
    expect(calls).toEqual([]);
    const human = approve(alice, proposal, 'write_file');
    expect((await approvalFor(alice, human)).payload).toMatchObject({ complete: true, approvals: [{ by: 'rules' }, { by: 'alice' }] });
    await alice.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === human);
    expect(calls).toHaveLength(1);
  });

  it('keeps an approver’s proposal pending in the SDK, resolves its outcome as recorded and refuses a second approval', async () => {
    const fx = await start();
    const { calls } = fx;
    const alice = await participants!.connect('alice');
    const bob = await participants!.connect('bob');
    await alice.discovery.discover('tools');
    const proposal = await propose(fx, 'write_file');
    await expect.poll(() => alice.proposals.get(proposal)?.state).toBe('pending');

    const outcome = await alice.proposals.fulfil(proposal).outcome;
    expect(outcome).toBeInstanceOf(ApprovalRecorded);
    expect(outcome).toMatchObject({ proposalId: proposal, required: 2, approvals: [{ by: 'alice' }] });
    expect(alice.proposals.get(proposal)).toMatchObject({
      state: 'pending',
      fulfilments: [],
      approvals: { required: 2, complete: false, by: [{ by: 'alice' }] },
    });
    await expect.poll(() => bob.proposals.get(proposal)?.approvals?.by.map((a) => a.by)).toEqual(['alice']);
    expect(() => alice.proposals.fulfil(proposal)).toThrow(/already approved .* \(1 of 2\)/);
    expect(calls).toEqual([]);

    // Bob's approval completes it: his outcome is the tool's result, and both see the proposal carried out.
    expect(await bob.proposals.fulfil(proposal).outcome).toMatchObject({ content: [{ type: 'text', text: 'did write_file' }] });
    await expect.poll(() => alice.proposals.get(proposal)?.state).toBe('completed');
    expect(alice.proposals.get(proposal)?.approvals).toMatchObject({ complete: true, by: [{ by: 'alice' }, { by: 'bob' }] });
    expect(calls).toHaveLength(1);
    await expect(rejectionOf(Promise.resolve().then(() => bob.proposals.fulfil(proposal).outcome))).resolves.toMatchObject({
      message: expect.stringMatching(/not pending|completed/),
    });
  });

  it('remembers approvals across a restart (from the retained history)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-quorum-'));
    const before = await start({ dataDir });
    await listTools(before);
    const proposal = await propose(before, 'write_file');
    const first = approve(before.alice, proposal, 'write_file');
    await approvalFor(before.bob, first);
    const port = before.gw.port;
    participants!.disconnectAll();
    await open.pop()!.close();

    const after = await start({ dataDir, port });
    // Alice again counts once; the tool's risk is known without a new listing.
    const again = approve(after.alice, proposal, 'write_file');
    expect((await approvalFor(after.bob, again)).payload).toMatchObject({ required: 2, complete: false, approvals: [{ by: 'alice', envelope_id: first }] });
    const second = approve(after.bob, proposal, 'write_file');
    await after.bob.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === second);
    expect(after.calls).toHaveLength(1);
  });
});

describe('two-person approval from notifications', () => {
  let gw: TestGateway | undefined;
  let receiver: TestReceiver | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await gw?.close();
    await receiver?.close();
    gw = receiver = undefined;
  });

  it('counts each action link as one approver, its participant: the second one runs the call once', async () => {
    receiver = await startReceiver();
    const space = spaceConfig(
      'links',
      { lead: [{ kind: '*' }], ops: [{ kind: '*' }], agent: [{ kind: 'mcp/proposal' }], tools: [{ kind: 'mcp/response' }] },
      { approvals: { tools: { read_note: 2 } } },
    );
    gw = await startGatewayWith({ configs: [space] });
    const [lead, agent, tools] = await Promise.all(['lead', 'agent', 'tools'].map((id) => joinAs(gw!, tokenOf(id), 'space=links')));
    clients.push(lead, agent, tools);
    const list = 'list-1';
    lead.send({ id: list, kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id: list, method: 'tools/list' } });
    await tools.next((f) => f.id === list);
    tools.send({
      kind: 'mcp/response',
      to: ['lead'],
      correlation_id: [list],
      payload: { jsonrpc: '2.0', id: list, result: { tools: [{ name: 'read_note', security: { risk_level: 'safe' } }] } },
    });
    await lead.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === list);

    const devices = Object.fromEntries(
      await Promise.all(
        ['lead', 'ops'].map(async (who) => {
          const device = testSubscriber();
          const res = await fetch(gw!.httpUrl('/api/spaces/links/push/subscriptions'), {
            method: 'POST',
            headers: { Authorization: `Bearer ${tokenOf(who)}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(device.subscription(receiver!.url(`/push/${who}`))),
          });
          expect(res.status).toBe(201);
          return [who, device] as const;
        }),
      ),
    );
    agent.send({ id: 'note-1', kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: 'read_note', arguments: {} } } });
    const approveUrl = async (who: string) => decryptPush(await receiver!.next(`/push/${who}`), devices[who]).action_urls!.approve!;
    const [byLead, byOps] = [await approveUrl('lead'), await approveUrl('ops')];

    expect((await fetch(gw.httpUrl(byLead), { method: 'POST' })).status).toBe(200);
    expect((await lead.next((f) => f.kind === 'system/approval')).payload).toMatchObject({ complete: false, approvals: [{ by: 'lead' }] });
    expect((await fetch(gw.httpUrl(byOps), { method: 'POST' })).status).toBe(200);
    expect((await lead.next((f) => f.kind === 'system/approval')).payload).toMatchObject({ complete: true, approvals: [{ by: 'lead' }, { by: 'ops' }] });
    const request = await tools.next((f) => f.kind === 'mcp/request' && f.correlation_id?.[0] === 'note-1');
    expect(request.from).toBe('ops');
    expect(tools.received.filter((f) => f.kind === 'mcp/request' && f.correlation_id?.[0] === 'note-1')).toEqual([]);
  });
});

describe('the approvals config', () => {
  const parse = (approvals: unknown) => () => parseSpaceConfig(spaceConfig('cfg', { lead: [{ kind: '*' }] }, { approvals }), 'space.yaml');

  it('takes counts by risk level and by tool pattern', () => {
    expect(parse({ dangerous: 2, moderate: 1, tools: { 'deploy_*': 3 } })()).toMatchObject({
      approvals: { dangerous: 2, moderate: 1, tools: { 'deploy_*': 3 } },
    });
    expect(parseSpaceConfig(spaceConfig('cfg', { lead: [] }), 'space.yaml').approvals).toBeUndefined();
  });

  it('refuses a count that is not a positive integer, naming its path', () => {
    expect(parse({ dangerous: 0 })).toThrow('space.yaml: approvals.dangerous: must be a positive integer');
    expect(parse({ dangerous: 'two' })).toThrow('space.yaml: approvals.dangerous: must be a positive integer');
    expect(parse({ safe: 1.5 })).toThrow('space.yaml: approvals.safe: must be a positive integer');
    expect(parse({ tools: { 'deploy_*': -1 } })).toThrow('space.yaml: approvals.tools.deploy_*: must be a positive integer');
    expect(parse({ critical: 2 })).toThrow(/space\.yaml: approvals: .*critical/);
  });
});
