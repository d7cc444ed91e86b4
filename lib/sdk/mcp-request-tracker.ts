import type { AnyEnvelope } from '../protocol';
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
 * Follows one `mcp/request` or `mcp/proposal` of mine on its sent record, over MEW's broadcast:
 * - a request settles with the `mcp/response` correlated to it, from one of its targets;
 * - a proposal is fulfilled by someone else's `mcp/request` correlated to it (sent to the proposal's targets), which
 *   becomes a link of its record, and settles with a target's response to that fulfilment;
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
