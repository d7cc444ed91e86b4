import type { AnyEnvelope } from '../protocol';
import { McpError, ProposalRejectedError, RequestTimeoutError } from './sdk-errors';

/** One outstanding `mcp/request` or `mcp/proposal` of mine. */
interface Pending {
  mode: 'request' | 'proposal';
  /** Who may answer: the request's (or proposal's) `to`. */
  targets: readonly string[];
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export interface TrackOptions {
  mode: 'request' | 'proposal';
  targets: readonly string[];
  timeoutMs: number;
  /** Runs when the timeout fires, before the promise rejects (a proposal sends `mcp/withdraw` here). */
  onTimeout?: () => void;
}

/**
 * Correlates my MCP requests and proposals with what comes back, the MCP SDK's `Protocol` way (a map of pending
 * promises keyed by id, each with its timeout), over MEW's broadcast:
 * - a request settles with the `mcp/response` whose `correlation_id` names it, from one of its targets;
 * - a proposal is fulfilled by someone else's `mcp/request` correlating it (sent to the proposal's targets),
 *   and settles with the target's response to that fulfilment, which I observe because routing is broadcast;
 * - `mcp/reject` of a proposal fails it at once; so does a gateway refusal, which the participant learns through
 *   its `ReplyWaiter` (the one place refusals are read) and passes on with `fail`.
 *
 * @example
 * const tracker = new McpRequestTracker();
 * const result = tracker.track(sent.id, { mode: 'request', targets: ['calc'], timeoutMs: 5000 });
 * client.on('message', (env) => tracker.observe(env));
 */
export class McpRequestTracker {
  private readonly pending = new Map<string, Pending>();
  /** Fulfilment request id → the proposal id it fulfils. */
  private readonly fulfilments = new Map<string, string>();

  /** Starts waiting for the answer to the envelope `id` I just sent. */
  track(id: string, options: TrackOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.has(id)) return;
        options.onTimeout?.();
        const what = options.mode === 'proposal' ? `proposal ${id} (withdrawn)` : `mcp/request ${id}`;
        this.settle(id, () => reject(new RequestTimeoutError(what, options.timeoutMs)));
      }, options.timeoutMs);
      this.pending.set(id, { mode: options.mode, targets: options.targets, resolve, reject, timer });
    });
  }

  /** Feeds every inbound envelope; only the ones about my pending requests matter. */
  observe(envelope: AnyEnvelope): void {
    const ids = envelope.correlation_id;
    if (!ids || this.pending.size === 0) return;
    switch (envelope.kind) {
      case 'mcp/response':
        for (const ref of ids) {
          const id = this.fulfilments.get(ref) ?? ref;
          const pending = this.pending.get(id);
          // Only a target may answer: anyone else holding mcp/response could otherwise forge my result.
          if (!pending?.targets.includes(envelope.from)) continue;
          const { result, error } = envelope.payload;
          this.settle(id, () => (error ? pending.reject(new McpError(error.code, error.message, error.data)) : pending.resolve(result)));
          return;
        }
        return;
      case 'mcp/request':
        for (const ref of ids) {
          const pending = this.pending.get(ref);
          // A fulfilment must go to the proposal's targets, or its response could come from anyone.
          if (pending?.mode === 'proposal' && (envelope.to ?? []).every((to) => pending.targets.includes(to))) {
            this.fulfilments.set(envelope.id, ref);
          }
        }
        return;
      case 'mcp/reject':
        for (const ref of ids) {
          const pending = this.pending.get(ref);
          if (pending?.mode !== 'proposal') continue;
          const reason = envelope.payload.reason ?? 'no reason given';
          this.settle(ref, () => pending.reject(new ProposalRejectedError(envelope.from, reason)));
        }
        return;
    }
  }

  /** Whether `id` is an outstanding request or proposal of mine, and which. */
  modeOf(id: string): 'request' | 'proposal' | undefined {
    return this.pending.get(id)?.mode;
  }

  /** The ids of everything outstanding, oldest first. */
  outstanding(): string[] {
    return [...this.pending.keys()];
  }

  /** Fails one outstanding request or proposal (the gateway refused it, or I gave up on it). */
  fail(id: string, error: Error): void {
    const pending = this.pending.get(id);
    if (pending) this.settle(id, () => pending.reject(error));
  }

  /** Fails everything outstanding (the connection ended for good). */
  rejectAll(error: Error): void {
    for (const [id, pending] of this.pending) this.settle(id, () => pending.reject(error));
  }

  private settle(id: string, finish: () => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    for (const [fulfilment, proposal] of this.fulfilments) if (proposal === id) this.fulfilments.delete(fulfilment);
    finish();
  }
}
