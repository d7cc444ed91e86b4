import { createHash } from 'node:crypto';
import { BoundedMap } from '../collections/bounded-map';
import { GATEWAY_ID, withoutRuleRef, type ApprovalEntry, type Envelope, type SystemApprovalPayload } from '../protocol';
import { mayNeedSeveral, requiredApprovals, type ApprovalPolicy } from './approval-policy';
import { canonicalJson } from './audit/canonical-json';
import { GatewayError } from './gateway-error';
import type { OutboundMessage } from './outbound-message';
import { trackedProposalOf, type TrackedProposal } from './proposal-tracker';
import type { Space } from './space';
import { ToolRiskIndex } from './tool-risk-index';

/** Proposals whose approvals are remembered (as many as the proposal tracker remembers proposals). */
const QUORUMS_KEPT = 10_000;

/** The approvals of one proposal whose tool needs several. */
interface Quorum {
  /** Never lowered: a tool that lists itself safer after the first approval does not need fewer. */
  required: number;
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
 * What it knows is rebuilt at start from the retained history (proposals, listings, `system/approval`s), so a
 * restart or a cluster takeover forgets no approval of a proposal still in it. One per space; bounded.
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

  /** The space config's `approvals`; with one that asks for several, what the retained history says is recalled. */
  configure(policy: ApprovalPolicy | undefined, retained: Iterable<OutboundMessage> = []): void {
    this.policy = mayNeedSeveral(policy) ? policy : undefined;
    if (this.policy) for (const message of retained) this.recall(message);
  }

  /** The proposal's call hash to keep with it, where approvals are counted. */
  proposalCall(proposal: Envelope<'mcp/proposal'>): string | undefined {
    return this.policy ? callHash(proposal.payload.method, proposal.payload.params) : undefined;
  }

  /** Feeds a routed envelope: `tools/list` answers give tools their risk. */
  observe(envelope: Envelope): void {
    if (this.policy && (envelope.kind === 'mcp/request' || envelope.kind === 'mcp/response')) this.tools.observe(envelope);
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
    if (required <= 1) return 'route';
    if (known?.completed !== undefined) {
      const approvers = known.calls.get(known.completed)?.map((a) => a.by) ?? [];
      throw new GatewayError('proposal_not_pending', `proposal "${proposal.id}" was already carried out, approved by ${approvers.join(', ')}`, {
        proposal_id: proposal.id,
        state: 'fulfilled',
      });
    }
    const quorum = known ?? { required, calls: new Map<string, ApprovalEntry[]>() };
    quorum.required = required;
    if (!known) this.quorums.set(proposal.id, quorum);
    const call = callHash(request.payload.method, request.payload.params);
    const before = quorum.calls.get(call) ?? [];
    // The proposer never counts, and the same approver twice counts once (a rule supervisor is one participant).
    const counted = request.from !== proposal.proposer && !before.some((a) => a.by === request.from);
    const approvals = counted ? [...before, { by: request.from, envelope_id: request.id, at: new Date().toISOString() }] : before;
    quorum.calls.set(call, approvals);
    const complete = approvals.length >= required;
    if (complete) quorum.completed = call;
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
    const { method, params } = request.payload;
    const tool = method === 'tools/call' && isRecord(params) && typeof params.name === 'string' ? params.name : undefined;
    if (tool === undefined) return 1;
    const targets = request.to?.length ? request.to : proposal.target !== undefined ? [proposal.target] : [];
    if (targets.length === 0) return requiredApprovals(this.policy, tool, undefined);
    let required = 1;
    for (const target of targets) required = Math.max(required, requiredApprovals(this.policy, tool, this.tools.risk(target, tool)));
    return required;
  }

  /** One retained envelope, as it was when routed (held approvals are retained for their sender only: skipped). */
  private recall(message: OutboundMessage): void {
    const envelope = message.envelope;
    if (!envelope || message.visibleTo) return;
    switch (envelope.kind) {
      case 'mcp/proposal':
        this.space.proposals.remember(trackedProposalOf(envelope, this.proposalCall(envelope)));
        break;
      case 'mcp/request':
      case 'mcp/response':
        this.tools.observe(envelope);
        break;
      case 'system/approval':
        if (envelope.from === GATEWAY_ID) this.recallApproval(envelope.payload);
        break;
    }
  }

  private recallApproval({ proposal_id, required, approvals, complete, call }: SystemApprovalPayload): void {
    if (call === undefined) return;
    let quorum = this.quorums.get(proposal_id);
    if (!quorum) this.quorums.set(proposal_id, (quorum = { required, calls: new Map() }));
    quorum.required = Math.max(quorum.required, required);
    quorum.calls.set(call, approvals);
    if (complete) quorum.completed = call;
  }
}
