import type { AnyEnvelope, Envelope } from '../protocol';
import { PROPOSAL_TRACKER_LIMIT } from './sdk-defaults';

export type ProposalStatus = 'pending' | 'fulfilled' | 'rejected' | 'withdrawn';

/** Someone else's proposal and what became of it, as far as the envelopes I saw tell. */
export interface TrackedProposal {
  envelope: Envelope<'mcp/proposal'>;
  status: ProposalStatus;
  /** Who fulfilled, rejected or withdrew it. */
  decidedBy?: string;
  /** The fulfilment request's id, once fulfilled. */
  fulfilmentId?: string;
  /** The `mcp/reject` or `mcp/withdraw` reason. */
  reason?: string;
}

/**
 * Tracks other participants' `mcp/proposal`s (for fulfillers and approval UIs): `pending` until an `mcp/request`
 * correlating it fulfils it, an `mcp/reject` rejects it, or an `mcp/withdraw` withdraws it. A withdrawal counts
 * only from the original proposer (spec §3.3.1): anyone else's is ignored, or one participant could make
 * another's proposal vanish from every approver's queue. A decided proposal stays decided.
 *
 * @example
 * const tracker = new ProposalTracker();
 * const changed = tracker.observe(envelope, 'me'); // the proposal whose status changed, if any
 */
export class ProposalTracker {
  private readonly proposals = new Map<string, TrackedProposal>();

  constructor(private readonly limit = PROPOSAL_TRACKER_LIMIT) {}

  get(id: string): TrackedProposal | undefined {
    return this.proposals.get(id);
  }

  /** Proposals still waiting for a decision, oldest first. */
  pending(): TrackedProposal[] {
    return [...this.proposals.values()].filter((p) => p.status === 'pending');
  }

  /** Feeds an inbound envelope; returns the proposal it created or changed. My own proposals are not tracked here. */
  observe(envelope: AnyEnvelope, me: string | undefined): TrackedProposal | undefined {
    if (envelope.kind === 'mcp/proposal') {
      if (envelope.from === me || this.proposals.has(envelope.id)) return undefined;
      const tracked: TrackedProposal = { envelope, status: 'pending' };
      this.proposals.set(envelope.id, tracked);
      if (this.proposals.size > this.limit) this.evictOne();
      return tracked;
    }
    if (envelope.kind !== 'mcp/request' && envelope.kind !== 'mcp/reject' && envelope.kind !== 'mcp/withdraw') return undefined;
    for (const ref of envelope.correlation_id ?? []) {
      const tracked = this.proposals.get(ref);
      if (tracked?.status !== 'pending') continue;
      if (envelope.kind === 'mcp/withdraw' && envelope.from !== tracked.envelope.from) continue;
      tracked.decidedBy = envelope.from;
      if (envelope.kind === 'mcp/request') {
        tracked.status = 'fulfilled';
        tracked.fulfilmentId = envelope.id;
      } else {
        tracked.status = envelope.kind === 'mcp/reject' ? 'rejected' : 'withdrawn';
        tracked.reason = envelope.payload.reason;
      }
      return tracked;
    }
    return undefined;
  }

  /** Makes room: the oldest decided proposal goes first, so a burst does not push pending ones out of approvers' queues. */
  private evictOne(): void {
    for (const [id, proposal] of this.proposals) {
      if (proposal.status !== 'pending') {
        this.proposals.delete(id);
        return;
      }
    }
    this.proposals.delete(this.proposals.keys().next().value!);
  }
}
