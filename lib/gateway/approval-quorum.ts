import { createHash } from 'node:crypto';
import { BoundedMap } from '../collections/bounded-map';
import { GATEWAY_ID, withoutRuleRef, type ApprovalEntry, type Envelope, type SystemApprovalPayload } from '../protocol';
import { mayNeedSeveral, requiredApprovals, type ApprovalPolicy } from './approval-policy';
import { canonicalJson } from './audit/canonical-json';
import { GatewayError } from './gateway-error';
import type { OutboundMessage } from './outbound-message';
import type { QuorumRecord } from './persistence/space-records';
import { trackedProposalOf, type TrackedProposal } from './proposal-tracker';
import type { Space } from './space';
import { ToolRiskIndex } from './tool-risk-index';

/** Proposals whose approvals are remembered (as many as the proposal tracker remembers proposals). */
const QUORUMS_KEPT = 10_000;
/**
 * Of those, the newest kept in the space's records (`quorums`), which survive a restart and a takeover. The whole list
 * is written with each change (a proposal of a tool that needs several approvals, an approval, a reject or withdraw
 * that drops a count): a thousand is a few hundred kB, a few ms per write, and far more than a space has open at once.
 */
const QUORUMS_STORED = 1_000;

/** The approvals of one proposal whose tool needs several. */
interface Quorum {
  /** The proposal as tracked: recorded with its approvals, so that it stays known when the history no longer holds it. */
  proposal: TrackedProposal;
  /**
   * Fixed by the first approval and never lowered: a tool that lists itself safer after it does not need fewer.
   * Absent while none came (a proposal kept from when it was made: its count is decided by its first approval).
   */
  required?: number;
  /** Distinct approvers by call (`callHash`): approvals of different calls (edit-then-approve) do not add up. */
  calls: Map<string, ApprovalEntry[]>;
  /** The call that reached the quorum: the proposal was carried out, once. */
  completed?: string;
}

/** What becomes of an accepted `mcp/request`: routed as ever, or held short of its proposal's quorum. */
export type Admission = 'route' | 'held';

/**
 * Which call a request or proposal makes: sha256 (hex) of the canonical JSON of its method and params, without the
 * rule reference a rule supervisor adds (`_meta["mew/rule"]`), which changes nothing of what runs.
 */
export function callHash(method: unknown, params: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ method, params: withoutRuleRef(params) ?? null }))
    .digest('hex');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Several-person approval, enforced by the gateway whatever clients send (space config `approvals`). An
 * `mcp/request` correlated to someone else's tracked proposal whose tool needs N > 1 approvals is an approval: the
 * gateway records its sender (distinct participants, for the exact call: its method and params; the proposer never
 * counts), tells everyone with a `system/approval` correlated to the proposal ("1 of 2: alice"), audits it
 * (`PROPOSAL_APPROVED`), and, while fewer than N approved, does not route it: it is echoed to its sender alone
 * (`Space.hold`), so the tool never sees it. The Nth distinct approval is routed as any fulfilment, and runs the call
 * exactly once; a later approval of that proposal is refused (`proposal_not_pending`). A tool's risk comes from the
 * `tools/list` answers routed in the space (`ToolRiskIndex`); one of undeclared risk counts as dangerous.
 *
 * What it knows of proposals whose tool needs several approvals is kept in the space's records (`quorums`: the
 * newest QUORUMS_STORED; each approval written before it is announced or routed), which a cluster owner replicates to
 * Redis with the rest of its writes: a restart or a takeover forgets neither such a proposal nor its approvals, even
 * when the retained history no longer holds it, and never runs a completed one again. At start those are loaded
 * first, then the retained history (proposals, listings, `system/approval`s, rejects, withdraws) is replayed over
 * them: it adds what a write may have missed and counts nobody twice. Nothing is written while no `approvals` policy
 * asks for several, nor for an `mcp/request` that approves nothing.
 *
 * What becomes of a count (why it is kept the way it is):
 * - completed: the entry stays, with only the approvers of the call that ran, until newer proposals push it out of the
 *   bound: a late approval (a resend after a reconnect, a stale card, a notification link) is refused with
 *   `proposal_not_pending` for as long as the proposal is remembered at all. Dropping it at once would let that late
 *   approval start a new count, or, after a restart, be routed as the fulfilment of an unknown proposal.
 * - rejected or withdrawn (by its proposer): its approvals are dropped (a later fulfilment starts a new count from
 *   zero) but the proposal stays known with its count, for the same reason: forgotten, it could be carried out by a
 *   single approver after a restart.
 *
 * The tools' risk (ToolRiskIndex) is not kept: it is rebuilt from the listings still retained, and a tool whose listing
 * is gone counts as of undeclared risk, that is as dangerous, until it is listed again. That errs on the safe side (a
 * kept count is never lowered either): at worst a safe tool's call waits for a second approval after a restart.
 * One per space; bounded.
 */
export class ApprovalQuorum {
  private policy?: ApprovalPolicy;
  private readonly tools = new ToolRiskIndex();
  private readonly quorums = new BoundedMap<string, Quorum>(QUORUMS_KEPT);

  constructor(private readonly space: Space) {}

  /** Whether any tool of the space may need more than one approval: otherwise this costs nothing. */
  get active(): boolean {
    return this.policy !== undefined;
  }

  /**
   * The space config's `approvals`; with one that asks for several, the counts kept in the space's records are loaded,
   * then what the retained history says is recalled over them (written back when it added anything).
   */
  configure(policy: ApprovalPolicy | undefined, retained: Iterable<OutboundMessage> = []): void {
    this.policy = mayNeedSeveral(policy) ? policy : undefined;
    if (!this.policy) return;
    for (const record of this.space.services.records.data.quorums) this.load(record);
    let recalled = false;
    for (const message of retained) if (this.recall(message)) recalled = true;
    if (recalled) this.storeQuietly();
  }

  /** The proposal's call hash to keep with it, where approvals are counted. */
  proposalCall(proposal: Envelope<'mcp/proposal'>): string | undefined {
    return this.policy ? callHash(proposal.payload.method, proposal.payload.params) : undefined;
  }

  /**
   * Feeds a routed envelope: `tools/list` answers give tools their risk; a proposal of a tool that needs several
   * approvals is kept, a reject or withdraw drops its approvals.
   */
  observe(envelope: Envelope): void {
    if (!this.policy) return;
    switch (envelope.kind) {
      case 'mcp/request':
      case 'mcp/response':
        this.tools.observe(envelope);
        break;
      case 'mcp/proposal':
        // Routed already: a failed write is logged (the history holds the proposal meanwhile), never a refusal.
        if (this.track(envelope)) this.storeQuietly();
        break;
      case 'mcp/reject':
      case 'mcp/withdraw':
        if (this.close(envelope)) this.storeQuietly();
        break;
    }
  }

  /** Who approved the call that carried out the proposal, when it took several approvals. */
  approversOf(proposalId: string): string[] | undefined {
    const quorum = this.quorums.get(proposalId);
    return quorum?.completed === undefined ? undefined : quorum.calls.get(quorum.completed)?.map((a) => a.by);
  }

  /**
   * Decides an accepted `mcp/request` (id, ts and from filled in) before it is routed: `route` it as ever (no
   * proposal of another, one approval needed, or the approval that completes the quorum, announced first), or it
   * was `held` (announced, audited and echoed to its sender only). Throws `proposal_not_pending` for an approval of a
   * proposal whose quorum was reached already: its call ran once and does not run again.
   */
  admit(request: Envelope<'mcp/request'>): Admission {
    if (!this.policy) return 'route';
    const proposal = this.space.proposals.find(request.correlation_id);
    if (!proposal) return 'route';
    const known = this.quorums.get(proposal.id);
    const required = Math.max(known?.required ?? 1, this.requirement(request, proposal));
    if (required <= 1) {
      // Kept when proposed (its tool's risk was not known yet), it needed one approval after all: carried out.
      if (known && known.required === undefined && this.quorums.delete(proposal.id)) this.storeQuietly();
      return 'route';
    }
    if (known?.completed !== undefined) {
      const approvers = known.calls.get(known.completed)?.map((a) => a.by) ?? [];
      throw new GatewayError('proposal_not_pending', `proposal "${proposal.id}" was already carried out, approved by ${approvers.join(', ')}`, {
        proposal_id: proposal.id,
        state: 'fulfilled',
      });
    }
    const call = callHash(request.payload.method, request.payload.params);
    const before = known?.calls.get(call) ?? [];
    // The proposer never counts, and the same approver twice counts once (a rule supervisor is one participant).
    const counted = request.from !== proposal.proposer && !before.some((a) => a.by === request.from);
    const approvals = counted ? [...before, { by: request.from, envelope_id: request.id, at: new Date().toISOString() }] : before;
    const complete = approvals.length >= required;
    if (counted || known?.required !== required) {
      // Written before anyone is told or the tool sees it: a crash right after never runs the call a second time (at
      // worst the completing approval is on record while its request was lost, and is refused when sent again).
      const calls = new Map(known?.calls);
      calls.set(call, approvals);
      this.persist({ proposal: known?.proposal ?? proposal, required, calls, ...(complete && { completed: call }) });
    }
    const payload: SystemApprovalPayload = {
      proposal_id: proposal.id,
      request_id: request.id,
      required,
      approvals,
      complete,
      call,
      ...(proposal.call !== undefined && { edited: call !== proposal.call }),
    };
    this.space.emit('system/approval', payload, { correlationId: [proposal.id, request.id] });
    this.space.audit('PROPOSAL_APPROVED', {
      actor: request.from,
      subject: proposal.proposer,
      envelope_id: request.id,
      details: {
        trace_id: proposal.id,
        proposal_id: proposal.id,
        tool: proposal.tool,
        request_id: request.id,
        approvals: approvals.map((a) => a.by),
        required,
        complete,
        counted,
      },
    });
    if (complete) return 'route';
    this.space.hold(request);
    return 'held';
  }

  /**
   * How many approvals the call needs: only tool calls take part, by the tool's risk at each participant the request
   * goes to (the proposal's target when it names none; none at all counts as undeclared), the largest.
   */
  private requirement(request: Envelope<'mcp/request'>, proposal: TrackedProposal): number {
    const targets = request.to?.length ? request.to : proposal.target !== undefined ? [proposal.target] : [];
    return this.requiredFor(request.payload, targets);
  }

  private requiredFor({ method, params }: { method?: unknown; params?: unknown }, targets: readonly string[]): number {
    const tool = method === 'tools/call' && isRecord(params) && typeof params.name === 'string' ? params.name : undefined;
    if (tool === undefined) return 1;
    if (targets.length === 0) return requiredApprovals(this.policy, tool, undefined);
    let required = 1;
    for (const target of targets) required = Math.max(required, requiredApprovals(this.policy, tool, this.tools.risk(target, tool)));
    return required;
  }

  /**
   * Tracks a routed proposal, and keeps it when its tool needs several approvals as far as is known now (the count
   * itself is decided by its first approval). Returns whether it was kept. The tracker keeps the first proposal of an
   * id (ids are the sender's choice): one reusing a tracked id is not kept again.
   */
  private track(envelope: Envelope<'mcp/proposal'>): boolean {
    if (this.space.proposals.find([envelope.id])) return false;
    const proposal = trackedProposalOf(envelope, this.proposalCall(envelope));
    this.space.proposals.remember(proposal);
    if (this.requiredFor(envelope.payload, envelope.to ?? []) <= 1) return false;
    this.quorums.set(proposal.id, { proposal, calls: new Map() });
    return true;
  }

  /**
   * A reject, or a withdraw by the proposer, of a proposal still pending: its approvals are dropped (see the class
   * comment), the proposal and its count stay. Returns whether anything changed.
   */
  private close(envelope: Envelope): boolean {
    let changed = false;
    for (const id of envelope.correlation_id ?? []) {
      const quorum = this.quorums.get(id);
      if (!quorum || quorum.completed !== undefined || !someApproval(quorum)) continue;
      if (envelope.kind === 'mcp/withdraw' && envelope.from !== quorum.proposal.proposer) continue;
      this.quorums.set(id, { ...quorum, calls: new Map() });
      changed = true;
    }
    return changed;
  }

  /** Makes `quorum` current and writes what is kept; if the write fails, what was current stays, and it throws. */
  private persist(quorum: Quorum): void {
    const { id } = quorum.proposal;
    const previous = this.quorums.get(id);
    this.quorums.set(id, quorum);
    try {
      this.store();
    } catch (e) {
      if (previous) this.quorums.set(id, previous);
      else this.quorums.delete(id);
      throw e;
    }
  }

  /** Writes the newest QUORUMS_STORED quorums to the space's records (in one write with the rest of its records). */
  private store(): void {
    const records: QuorumRecord[] = [];
    let skipped = this.quorums.size - QUORUMS_STORED;
    for (const quorum of this.quorums.values()) if (skipped-- <= 0) records.push(recordOf(quorum));
    this.space.services.records.setQuorums(records);
  }

  /** `store` where a failure must not undo what was routed: logged, and written with the next change. */
  private storeQuietly(): void {
    try {
      this.store();
    } catch (e) {
      console.error(`[gateway] could not record the approvals of space ${this.space.id}:`, (e as Error).message);
    }
  }

  /** A kept quorum, as it was before the restart: its proposal is tracked again. */
  private load({ proposal, required, calls, completed }: QuorumRecord): void {
    this.space.proposals.remember(proposal);
    this.quorums.set(proposal.id, {
      proposal,
      ...(required !== undefined && { required }),
      calls: new Map(Object.entries(calls)),
      ...(completed !== undefined && { completed }),
    });
  }

  /**
   * One retained envelope, as it was when routed (held approvals are retained for their sender only: skipped).
   * Returns whether it changed what was known (loaded from the records, or recalled before it).
   */
  private recall(message: OutboundMessage): boolean {
    const envelope = message.envelope;
    if (!envelope || message.visibleTo) return false;
    switch (envelope.kind) {
      case 'mcp/proposal':
        return this.track(envelope);
      case 'mcp/request':
      case 'mcp/response':
        this.tools.observe(envelope);
        return false;
      case 'mcp/reject':
      case 'mcp/withdraw':
        return this.close(envelope);
      case 'system/approval':
        return envelope.from === GATEWAY_ID && this.recallApproval(envelope.payload);
      default:
        return false;
    }
  }

  /**
   * Adds a retained `system/approval` to what is known: its approvers to those of its call (a union: the records may
   * already hold them, or more), its count as a floor, its completion. Returns whether anything was new.
   */
  private recallApproval({ proposal_id, required, approvals, complete, call }: SystemApprovalPayload): boolean {
    if (call === undefined) return false;
    const known = this.quorums.get(proposal_id);
    // Its proposal is no longer retained nor kept (from before approvals were kept): nothing would find the count.
    const proposal = known?.proposal ?? this.space.proposals.find([proposal_id]);
    if (!proposal) return false;
    const quorum: Quorum = known ?? { proposal, calls: new Map() };
    // Of a completed proposal only the call that ran is kept.
    if (quorum.completed !== undefined && quorum.completed !== call) return false;
    const before = quorum.calls.get(call) ?? [];
    const added = approvals.filter((a) => !before.some((b) => b.by === a.by));
    const changed = !known || added.length > 0 || (quorum.required ?? 0) < required || (complete && quorum.completed === undefined);
    if (!changed) return false;
    quorum.required = Math.max(quorum.required ?? 0, required);
    quorum.calls.set(call, [...before, ...added]);
    if (complete) quorum.completed ??= call;
    this.quorums.set(proposal_id, quorum);
    return true;
  }
}

const someApproval = (quorum: Quorum): boolean => [...quorum.calls.values()].some((approvals) => approvals.length > 0);

/** What is kept of a quorum: of a completed one only who approved the call that ran; no call nobody approved. */
function recordOf({ proposal, required, calls, completed }: Quorum): QuorumRecord {
  const kept: Record<string, ApprovalEntry[]> = {};
  for (const [call, approvals] of calls) if (approvals.length > 0 && (completed === undefined || call === completed)) kept[call] = approvals;
  return { proposal, ...(required !== undefined && { required }), calls: kept, ...(completed !== undefined && { completed }) };
}
