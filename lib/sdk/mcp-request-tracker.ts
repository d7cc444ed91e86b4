import { GATEWAY_ID, type AnyEnvelope, type ApprovalEntry, type SystemApprovalPayload } from '../protocol';
import type { Relation, SentEnvelopes, Waiter } from './sent-envelopes';
import { McpError, ProposalRejectedError, RequestTimeoutError } from './sdk-errors';

export interface TrackOptions {
  mode: 'request' | 'proposal';
  /** Who may answer: the request's (or proposal's) `to`. */
  targets: readonly string[];
  timeoutMs: number;
  /** Runs when the timeout fires, before the promise rejects (a proposal sends `mcp/withdraw` here). */
  onTimeout?: () => void;
}

/**
 * What a fulfilment's `outcome` resolves with when its tool needs several approvals and mine was not the last: the
 * gateway recorded my approval and held the request (the tool did not run); the call runs once enough distinct
 * participants approved it, and the proposal then moves on as usual (its response names the last approver's request).
 */
export class ApprovalRecorded {
  readonly proposalId: string;
  readonly required: number;
  /** The distinct approvers so far, mine included (unless I had approved this call already, or proposed it). */
  readonly approvals: readonly ApprovalEntry[];

  constructor(payload: SystemApprovalPayload) {
    this.proposalId = payload.proposal_id;
    this.required = payload.required;
    this.approvals = payload.approvals;
  }
}

/**
 * Follows one `mcp/request` or `mcp/proposal` of mine on its sent record, over MEW's broadcast:
 * - a request settles with the `mcp/response` correlated to it, from one of its targets;
 * - a proposal is fulfilled by someone else's `mcp/request` correlated to it (sent to the proposal's targets), which
 *   becomes a link of its record, and settles with a target's response to that fulfilment;
 * - a fulfilment the gateway held short of its proposal's quorum (a `system/approval` correlated to it, not complete)
 *   resolves with `ApprovalRecorded`: no response will come to it;
 * - `mcp/reject` of a proposal fails it at once. A gateway refusal, a give-up or a closed connection fails it
 *   through the record, like any waiter on it.
 */
class McpRequestWaiter implements Waiter {
  constructor(
    readonly id: string,
    readonly options: TrackOptions,
    private readonly sent: SentEnvelopes,
    private readonly resolve: (result: unknown) => void,
    readonly fail: (error: Error) => void,
  ) {}

  observe(envelope: AnyEnvelope, relation: Relation): boolean {
    if (relation === 'echo') return false;
    const { mode, targets } = this.options;
    switch (envelope.kind) {
      case 'mcp/response': {
        // Only a target may answer: anyone else holding mcp/response could otherwise forge my result.
        if (!targets.includes(envelope.from)) return false;
        const { result, error } = envelope.payload;
        if (error) this.fail(new McpError(error.code, error.message, error.data));
        else this.resolve(result);
        return true;
      }
      case 'mcp/request':
        // A fulfilment must go to the proposal's targets, or its response could come from anyone.
        if (mode === 'proposal' && relation === 'reply' && (envelope.to ?? []).every((to) => targets.includes(to))) this.sent.link(envelope.id, this.id);
        return false;
      case 'system/approval': {
        const { payload } = envelope;
        if (mode !== 'request' || relation !== 'reply' || envelope.from !== GATEWAY_ID || payload.request_id !== this.id || payload.complete) return false;
        this.resolve(new ApprovalRecorded(payload));
        return true;
      }
      case 'mcp/reject':
        if (mode !== 'proposal' || relation !== 'reply') return false;
        this.fail(new ProposalRejectedError(envelope.from, envelope.payload.reason ?? 'no reason given'));
        return true;
      default:
        return false;
    }
  }
}

/**
 * Waits for the answer to my request or proposal `id` (just sent) on its record in `sent`: the result, or
 * `McpError`, `ProposalRejectedError`, `RequestTimeoutError` (after `onTimeout`), or what fails the record.
 *
 * @example
 * const result = await trackMcpRequest(client.sent, sent.id, { mode: 'request', targets: ['calc'], timeoutMs: 5000 });
 */
export function trackMcpRequest(sent: SentEnvelopes, id: string, options: TrackOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const what = options.mode === 'proposal' ? `proposal ${id} (withdrawn)` : `mcp/request ${id}`;
    sent.follow(id, new McpRequestWaiter(id, options, sent, resolve, reject), options.timeoutMs, () => {
      options.onTimeout?.();
      return new RequestTimeoutError(what, options.timeoutMs);
    });
  });
}

/** Whether `id` is an outstanding request or proposal of mine, and which. */
export function trackedMode(sent: SentEnvelopes, id: string): TrackOptions['mode'] | undefined {
  return mcpWaiterOf(sent.get(id)?.waiting.map((w) => w.waiter))?.options.mode;
}

/** My outstanding requests and proposals, oldest first. */
export function outstandingMcpRequests(sent: SentEnvelopes): { id: string; mode: TrackOptions['mode'] }[] {
  const out: { id: string; mode: TrackOptions['mode'] }[] = [];
  for (const record of sent.values()) {
    const waiter = mcpWaiterOf(record.waiting.map((w) => w.waiter));
    if (waiter) out.push({ id: waiter.id, mode: waiter.options.mode });
  }
  return out;
}

function mcpWaiterOf(waiters: readonly Waiter[] | undefined): McpRequestWaiter | undefined {
  return waiters?.find((w): w is McpRequestWaiter => w instanceof McpRequestWaiter);
}
