import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ApprovalRecorded, trackMcpRequest } from '../sdk/mcp-request-tracker';
import type { MEWClient } from '../sdk/mew-client';
import type { MEWParticipant } from '../sdk/mew-participant';
import { GatewayRefusalError } from '../sdk/sdk-errors';
import { freePort } from './testing';
import {
  cleanUpCrashTest,
  crashRun,
  crashToken,
  loadFor,
  mustReach,
  RECONNECT_BOUND_MS,
  SdkClients,
  SeededRandom,
  ServerProcess,
  tempDir,
  waitUntil,
} from './testing/crash-harness';

/**
 * Two-person approval (`approvals: {dangerous: 2}`, lib/gateway/approval-quorum.ts) across kill -9: the gateway runs
 * as its own process (`node --import tsx scripts/gateway.ts`, SQLite in MEW_DATA_DIR) and is killed with SIGKILL,
 * then started again on the same port and data dir; the participants are the project's SDK clients in this process,
 * with catch-up and reconnect on. A dangerous tool served by a `MEWParticipant` counts its executions by business
 * key: an approved call runs exactly once, an approval is never forgotten, a single approver never runs anything, a
 * late approval is refused. The space's history is short and chats push the proposals out of it, so that what the
 * gateway remembers after a restart comes from its records, not from replaying the history.
 */

const TOOL = 'wire_money';
const APPROVERS = ['alice', 'bob', 'carol'] as const;
type Approver = (typeof APPROVERS)[number];

const PARTICIPANTS: Record<string, unknown[]> = {
  tools: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  proposer: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }, { kind: 'chat' }],
  ...Object.fromEntries(APPROVERS.map((id) => [id, [{ kind: 'mcp/request' }, { kind: 'chat' }]])),
};

/** The call a proposal of `key` makes (and every approval of it repeats, unedited). */
const callOf = (key: string) => ({ name: TOOL, arguments: { key } });

interface Fixture {
  gateway: ServerProcess;
  clients: SdkClients;
  tools: MEWParticipant;
  proposer: MEWClient;
  approvers: Record<Approver, MEWParticipant>;
  /** Executions of the tool per business key, and the request envelope each ran for. */
  executions: Map<string, number>;
  ran: { key: string; request: string }[];
  /** Ids of every envelope the tools participant's application was given. */
  toolsSaw: Set<string>;
  space: string;
}

/** Writes the space config (`approvals: {dangerous: 2}`, a short history), starts the gateway and connects everyone. */
async function setUp(space: string, historySize: number): Promise<Fixture> {
  const dir = tempDir('mew-quorum-crash-');
  const file = join(dir, `${space}.yaml`);
  writeFileSync(
    file,
    stringify({
      space: { id: space, name: `two-person approval through kill -9 (${space})` },
      participants: Object.fromEntries(Object.entries(PARTICIPANTS).map(([id, capabilities]) => [id, { tokens: [crashToken(id)], capabilities }])),
      approvals: { dangerous: 2 },
      limits: { rate_per_second: 100_000, rate_burst: 100_000, history_size: historySize },
    }),
  );
  const gateway = await ServerProcess.start({ name: 'gateway', port: await freePort(), dataDir: dir, configFiles: [file] });
  const clients = new SdkClients(space, () => gateway.wsUrl);
  const executions = new Map<string, number>();
  const ran: Fixture['ran'] = [];
  const tools = clients.participant('tools').participant;
  tools.tools.register({
    name: TOOL,
    description: 'Wires money, once per key',
    inputSchema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    security: { risk_level: 'dangerous' },
    execute: ({ key }, context) => {
      executions.set(String(key), (executions.get(String(key)) ?? 0) + 1);
      ran.push({ key: String(key), request: context.envelope.id });
      return `wired ${String(key)}`;
    },
  });
  const toolsSaw = new Set<string>();
  tools.client.on('message', (envelope) => toolsSaw.add(envelope.id));
  const proposer = clients.client('proposer').client;
  const approvers = Object.fromEntries(APPROVERS.map((id) => [id, clients.participant(id).participant])) as Record<Approver, MEWParticipant>;
  await Promise.all([tools.connect(), proposer.connect(), ...APPROVERS.map((id) => approvers[id].connect())]);
  // An approver lists the tools: the gateway reads the tool's declared risk off the answer.
  const listed = await approvers.alice.discovery.discover('tools');
  expect(listed.map((t) => t.name)).toEqual([TOOL]);
  return { gateway, clients, tools, proposer, approvers, executions, ran, toolsSaw, space };
}

/** kill -9, start again on the same port and data dir, wait (bounded) until every client is ready again. */
async function crashAndRestart(fx: Fixture): Promise<void> {
  await fx.gateway.kill9();
  await fx.gateway.launch();
  if (!(await waitUntil(() => fx.clients.notReady().length === 0, RECONNECT_BOUND_MS))) {
    throw new Error(`clients not ready ${RECONNECT_BOUND_MS} ms after a restart: ${fx.clients.notReady().join(', ')}`);
  }
}

/** The proposer proposes the call of `key` to the tools participant; `accepted` resolves on its echo (durable). */
function propose(fx: Fixture, key: string): { id: string; accepted: Promise<unknown> } {
  const sent = fx.proposer.send({ kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: callOf(key) } });
  return { id: sent.id, accepted: fx.proposer.sent.wait(sent.id, { replyKinds: [], timeoutMs: 20_000 }) };
}

let jsonRpcIds = 0;

/**
 * Participant `p` fulfils (approves) proposal `proposalId` with its exact call, as a raw `mcp/request` followed like the
 * SDK follows its fulfilments: `outcome` is `ApprovalRecorded` when the gateway held it short of the quorum, the
 * tool's result when it ran, a `GatewayRefusalError` when refused. Raw, because an approval sent again (a stale card,
 * a resend after the gateway lost track) is what this is about, and the SDK's `fulfil` refuses a second approval of mine.
 */
function approve(p: MEWParticipant, proposalId: string, key: string): { id: string; outcome: Promise<unknown> } {
  const id = ++jsonRpcIds;
  const sent = p.client.send({
    kind: 'mcp/request',
    to: ['tools'],
    correlation_id: [proposalId],
    payload: { jsonrpc: '2.0', id, method: 'tools/call', params: callOf(key) },
  });
  return { id: sent.id, outcome: trackMcpRequest(p.client.sent, sent.id, { mode: 'request', targets: ['tools'], timeoutMs: 20_000 }) };
}

/** What a promise settled with, its rejection included. */
const settled = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => value,
    (error: unknown) => error,
  );

/** Carol chats `count` times, and the tools participant got them all: the history retains less than `count`. */
async function flood(fx: Fixture, count: number): Promise<void> {
  let last = '';
  for (let i = 0; i < count; i++) last = fx.approvers.carol.chat.send(`flood ${i}`).id;
  await mustReach(() => fx.toolsSaw.has(last), 15_000, 'the flood reaching the tools participant');
}

/** Everything sent before now reached the tools participant: a chat from `from` that it received. */
async function settle(fx: Fixture, from: MEWParticipant): Promise<void> {
  const marker = from.chat.send('marker');
  await mustReach(() => fx.toolsSaw.has(marker.id), 15_000, 'the marker reaching the tools participant');
}

/** Ids of the envelopes the space still retains that `participant` may read, and those they correlate to. */
async function retained(fx: Fixture, participant: string): Promise<Set<string>> {
  const response = await fetch(fx.gateway.httpUrl(`/participants/${participant}/messages?space=${fx.space}`), {
    headers: { Authorization: `Bearer ${crashToken(participant)}` },
  });
  expect(response.status).toBe(200);
  const page = (await response.json()) as { messages: { id: string; correlation_id?: string[] }[] };
  return new Set(page.messages.flatMap((m) => [m.id, ...(m.correlation_id ?? [])]));
}

describe('two-person approval through kill -9 (one gateway process)', () => {
  afterEach(cleanUpCrashTest);

  it('remembers an acknowledged approval through kill -9 once the history lost it, runs the call exactly once with the second approver, and refuses late approvals after another kill', async () => {
    const HISTORY = 10;
    const fx = await setUp('quorum-crash-a', HISTORY);
    const { alice, bob, carol } = fx.approvers;

    // P: approved by alice, then pushed out of the history, then kill -9. Q: approved by alice, then kill -9 at once.
    const p = propose(fx, 'P');
    const q = propose(fx, 'Q');
    await Promise.all([p.accepted, q.accepted]);
    await mustReach(() => alice.proposals.get(p.id)?.state === 'pending' && alice.proposals.get(q.id)?.state === 'pending', 10_000, 'alice seeing P and Q');
    const a1 = alice.proposals.fulfil(p.id);
    const first = await a1.outcome;
    expect(first).toBeInstanceOf(ApprovalRecorded);
    expect(first).toMatchObject({ proposalId: p.id, required: 2, approvals: [{ by: 'alice', envelope_id: a1.envelope.id }] });
    await flood(fx, 3 * HISTORY);
    const kept = await retained(fx, 'alice');
    for (const id of [p.id, q.id, a1.envelope.id]) expect(kept).not.toContain(id);

    const aq = await alice.proposals.fulfil(q.id).outcome;
    expect(aq).toMatchObject({ proposalId: q.id, required: 2, approvals: [{ by: 'alice' }] });
    await crashAndRestart(fx); // right after alice's approval of Q was acknowledged
    expect(await retained(fx, 'alice')).not.toContain(p.id);

    // Alice again: counted once, as she first approved (her first envelope); P still held, the tool ran nothing.
    // (Soft: forgotten, the rest still runs, and shows what forgetting leads to.)
    const again = await settled(approve(alice, p.id, 'P').outcome);
    expect(again).toBeInstanceOf(ApprovalRecorded);
    expect.soft(again).toMatchObject({ proposalId: p.id, required: 2, approvals: [{ by: 'alice', envelope_id: a1.envelope.id }] });
    await settle(fx, carol);
    expect(fx.executions).toEqual(new Map());

    // Bob alone completes Q (alice's approval of it survived the kill), and P: each runs exactly once.
    const bq = approve(bob, q.id, 'Q');
    expect(await settled(bq.outcome)).toEqual({ content: [{ type: 'text', text: 'wired Q' }] });
    const bp = approve(bob, p.id, 'P');
    expect(await settled(bp.outcome)).toEqual({ content: [{ type: 'text', text: 'wired P' }] });

    // A late approval by a third approver is refused, before and after another kill -9 that the history does not
    // outlive. (Soft: the executions below show what a late approval let through.)
    const refusedLate = async (proposalId: string, key: string) => {
      const late = await settled(approve(carol, proposalId, key).outcome);
      expect.soft(late).toBeInstanceOf(GatewayRefusalError);
      expect.soft(late).toMatchObject({ code: 'proposal_not_pending', payload: { proposal_id: proposalId } });
    };
    await refusedLate(p.id, 'P');
    await flood(fx, 3 * HISTORY);
    await crashAndRestart(fx);
    await refusedLate(q.id, 'Q');
    await refusedLate(p.id, 'P');
    await settle(fx, carol);
    expect(Object.fromEntries(fx.executions)).toEqual({ P: 1, Q: 1 });
    expect(fx.ran.map((r) => r.request).sort()).toEqual([bp.id, bq.id].sort());
  }, 40_000);

  it('proposals approved by alice and bob concurrently while kill -9 strikes at random moments: each ran exactly once, none with a single approval', async () => {
    const run = crashRun(0x5eed_a992);
    const fx = await setUp('quorum-crash-b', HISTORY_B);
    const proposals = await approveUnderKills(fx, run.seed, run.rng);
    const problems = await tally(fx, proposals, run.seed, run.budget.bound(20_000));
    expect(problems).toEqual({
      executedTwice: [],
      ranWithOneApproval: [],
      approvedNotRunOnce: [],
      ranForAnotherRequest: [],
      unsettled: [],
    });
    // The scenario did what it is for: approvals on both sides of a kill, approvals judged by the records alone.
    expect(proposals.filter((p) => p.straddled).length).toBeGreaterThan(0);
    expect(proposals.filter((p) => p.fromRecords).length).toBeGreaterThan(0);
  }, 50_000);
});

// ── Scenario B: the load and the tally ────────────────────────────────────────────────────────────────

/** Scenario B's history: before each kill a flood of twice as many chats leaves none of what came before in it. */
const HISTORY_B = 100;

type Outcome = 'pending' | 'recorded' | 'ran' | `refused ${string}` | `failed ${string}`;

interface PlannedApproval {
  by: 'alice' | 'bob';
  delayMs: number;
  request?: string;
  sentAt?: number;
  outcome: Outcome;
}

interface Planned {
  key: string;
  /** Who approves: both (the call must run once), or one of them, once or twice (it must never run). */
  plan: 'both' | 'alice' | 'bob' | 'alice twice';
  id?: string;
  accepted: boolean;
  acceptedAt?: number;
  approvals: PlannedApproval[];
  /** A kill fell between its first and its last approval. */
  straddled?: boolean;
  /**
   * Accepted before the flood that preceded a kill, approved (by someone) after the restart: the gateway judged that
   * approval by its records alone (the restarted gateway never had the proposal nor its earlier approvals in its history).
   */
  fromRecords?: boolean;
}

/**
 * For ~8 s, every 150–400 ms a proposal whose approvals (drawn when it is made, from `rng`) follow its acceptance
 * after 0–2000 ms (the first) and 0–3000 ms (the second; the same moment as the first a third of the time), while
 * the gateway is killed with -9 three times at moments drawn from a second generator of the same seed, and
 * restarted. Shortly before each kill carol floods the history, so that what was proposed and approved before the
 * flood is known to the restarted gateway from its records alone.
 */
async function approveUnderKills(fx: Fixture, seed: number, rng: SeededRandom): Promise<Planned[]> {
  const killRng = new SeededRandom(seed ^ 0x9e37_79b9);
  const proposals: Planned[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let stopped = false;

  const classify = (approval: PlannedApproval, outcome: unknown) => {
    if (outcome instanceof ApprovalRecorded) approval.outcome = 'recorded';
    else if (outcome instanceof GatewayRefusalError) approval.outcome = `refused ${outcome.code}`;
    else if (outcome instanceof Error) approval.outcome = `failed ${outcome.name}: ${outcome.message}`.slice(0, 160) as Outcome;
    else approval.outcome = 'ran';
  };
  const sendApproval = (planned: Planned, approval: PlannedApproval) => {
    const sent = approve(fx.approvers[approval.by], planned.id!, planned.key);
    approval.request = sent.id;
    approval.sentAt = Date.now();
    void settled(sent.outcome).then((outcome) => classify(approval, outcome));
  };

  const proposing = (async () => {
    for (let n = 0; !stopped; n++) {
      const draw = rng.next();
      const plan: Planned['plan'] = draw < 0.6 ? 'both' : draw < 0.75 ? 'alice' : draw < 0.9 ? 'bob' : 'alice twice';
      const by: PlannedApproval['by'][] =
        plan === 'both'
          ? rng.next() < 0.5
            ? ['alice', 'bob']
            : ['bob', 'alice']
          : plan === 'bob'
            ? ['bob']
            : plan === 'alice'
              ? ['alice']
              : ['alice', 'alice'];
      const together = rng.next() < 1 / 3;
      const firstDelay = rng.between(0, 2_000);
      const planned: Planned = {
        key: `k${n}`,
        plan,
        accepted: false,
        approvals: by.map((who, i) => ({ by: who, delayMs: i === 0 || together ? firstDelay : rng.between(0, 3_000), outcome: 'pending' })),
      };
      proposals.push(planned);
      const sent = propose(fx, planned.key);
      planned.id = sent.id;
      void sent.accepted.then(
        () => {
          planned.accepted = true;
          planned.acceptedAt = Date.now();
          for (const approval of planned.approvals) {
            const timer = setTimeout(() => {
              timers.delete(timer);
              sendApproval(planned, approval);
            }, approval.delayMs);
            timers.add(timer);
          }
        },
        () => undefined,
      );
      await loadFor(rng.between(150, 400));
    }
  })();

  const startedAt = Date.now();
  /** Per kill: when the flood before it began, when it struck. */
  const kills: { floodedFrom: number; killedAt: number }[] = [];
  for (let k = 0; k < 3; k++) {
    await loadFor(killRng.between(1_000, 2_000));
    const floodedFrom = Date.now();
    await flood(fx, 2 * HISTORY_B);
    await loadFor(killRng.between(0, 300));
    kills.push({ floodedFrom, killedAt: Date.now() });
    await crashAndRestart(fx);
  }
  await loadFor(killRng.between(500, 1_000));
  stopped = true;
  await proposing;
  // Every approval planned is sent (the last ones up to 3 s after their proposal was accepted).
  await waitUntil(() => timers.size === 0 && proposals.every((p) => !p.accepted || p.approvals.every((a) => a.request)), 20_000);
  for (const planned of proposals) {
    const times = planned.approvals.map((a) => a.sentAt ?? 0);
    planned.straddled = planned.approvals.length > 1 && kills.some(({ killedAt }) => killedAt > Math.min(...times) && killedAt < Math.max(...times));
    planned.fromRecords = kills.some(({ floodedFrom, killedAt }) => (planned.acceptedAt ?? Infinity) < floodedFrom && Math.max(...times) > killedAt);
  }
  console.log(
    `── two-person approval, kill -9 ×3 ── seed ${seed} (replay: MEW_CRASH_SEED=${seed}); kills @${kills.map(({ killedAt }) => killedAt - startedAt).join(', ')} ms; gateway starts (ms) [${fx.gateway.startMs.join(', ')}]`,
  );
  return proposals;
}

/**
 * Waits (bounded) until every proposal was accepted and every approval settled, and the tools participant got
 * everything routed before; prints the numbers and returns what must be empty.
 */
async function tally(fx: Fixture, proposals: Planned[], seed: number, boundMs: number) {
  const quiet = await waitUntil(() => proposals.every((p) => p.accepted && p.approvals.every((a) => a.outcome !== 'pending')), boundMs, 50);
  await settle(fx, fx.approvers.carol);
  const runs = (p: Planned) => fx.executions.get(p.key) ?? 0;
  const acknowledged = (a: PlannedApproval) => a.outcome === 'recorded' || a.outcome === 'ran';
  const byOne = proposals.filter((p) => p.plan !== 'both');
  const byBoth = proposals.filter((p) => p.plan === 'both');
  // Both approvals acknowledged: it must have run exactly once. Else (the completing approval refused as not pending:
  // on record while its request was lost in the crash, which the class comment allows) never more than once.
  const bothAcknowledged = byBoth.filter((p) => p.approvals.every(acknowledged));
  const requestsOf = new Map(proposals.map((p) => [p.key, new Set(p.approvals.map((a) => a.request))]));
  const problems = {
    executedTwice: [...fx.executions].filter(([, n]) => n > 1).map(([key, n]) => `${key}×${n}`),
    ranWithOneApproval: byOne.filter((p) => runs(p) > 0).map((p) => `${p.key} (${p.plan})×${runs(p)}`),
    approvedNotRunOnce: bothAcknowledged
      .filter((p) => runs(p) !== 1)
      .map((p) => `${p.key}×${runs(p)} [${p.approvals.map((a) => `${a.by}: ${a.outcome}`).join(', ')}]`),
    ranForAnotherRequest: fx.ran.filter((r) => !requestsOf.get(r.key)?.has(r.request)).map((r) => `${r.key} by ${r.request}`),
    unsettled: [
      ...proposals.filter((p) => !p.accepted).map((p) => `${p.key}: proposal never accepted`),
      // Of a call both approve, an approval is acknowledged, or refused as not pending (see above); nothing else.
      ...byBoth.flatMap((p) =>
        p.approvals.filter((a) => !acknowledged(a) && a.outcome !== 'refused proposal_not_pending').map((a) => `${p.key} (${p.plan}) ${a.by}: ${a.outcome}`),
      ),
      // A single approver's approvals are all recorded and held.
      ...byOne.flatMap((p) => p.approvals.filter((a) => a.outcome !== 'recorded').map((a) => `${p.key} (${p.plan}) ${a.by}: ${a.outcome}`)),
    ],
  };
  const lostCompletions = byBoth.filter((p) => !p.approvals.every(acknowledged));
  console.log(
    [
      `seed ${seed}: ${quiet ? 'every approval settled' : `NOT every approval settled within ${boundMs} ms`}`,
      `proposals ${proposals.length}: both ${byBoth.length} (acknowledged by both ${bothAcknowledged.length}, ran ${byBoth.filter((p) => runs(p) === 1).length}), one approver ${byOne.length}; approvals across a kill ${proposals.filter((p) => p.straddled).length}, judged by the records alone ${proposals.filter((p) => p.fromRecords).length}`,
      `tool executions ${fx.ran.length}; completing approvals refused as not pending (on record, request lost in the crash): ${lostCompletions.map((p) => `${p.key}×${runs(p)}`).join(', ') || 'none'}`,
      `disconnections: ${fx.clients.drops}; catch-ups ${fx.clients.catchUps} (incomplete ${fx.clients.incompleteCatchUps})`,
      `PROBLEMS ${JSON.stringify(problems)}`,
    ].join('\n'),
  );
  return problems;
}
