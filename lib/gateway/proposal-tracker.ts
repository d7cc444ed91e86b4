import { BoundedMap } from '../collections/bounded-map';

/** How many recent proposals (and fulfilling requests) the gateway remembers to audit what became of them. */
const TRACKED_PROPOSALS = 10_000;

/** A proposal the gateway saw, as its audit trail needs it. */
export interface TrackedProposal {
  id: string;
  proposer: string;
  tool?: string;
}

/** A request that fulfilled a proposal: whose response is the approved call's outcome. */
export interface TrackedFulfilment extends TrackedProposal {
  approvedBy: string;
}

/**
 * Remembers who proposed what, and which requests fulfilled which proposals (bounded, oldest forgotten first), so
 * the audit log can tell each proposal's trail: proposed → fulfilled or rejected (by whom) → executed (with what
 * outcome), or withdrawn. The proposal's id is the trail's `trace_id`. One per space: ids are only unique within one.
 */
export class ProposalTracker {
  private readonly proposals = new BoundedMap<string, TrackedProposal>(TRACKED_PROPOSALS);
  private readonly fulfilments = new BoundedMap<string, TrackedFulfilment>(TRACKED_PROPOSALS);

  /** Ids are the sender's choice: a second "proposal" reusing a known id does not take the first one over. */
  remember(proposal: TrackedProposal): void {
    if (!this.proposals.has(proposal.id)) this.proposals.set(proposal.id, proposal);
  }

  /** The first tracked proposal among `correlationIds` that `participantId` did not propose. */
  proposedByAnother(correlationIds: readonly string[] | undefined, participantId: string): TrackedProposal | undefined {
    return first(correlationIds, (id) => {
      const proposal = this.proposals.get(id);
      return proposal?.proposer === participantId ? undefined : proposal;
    });
  }

  /** The first tracked proposal among `correlationIds`. */
  find(correlationIds: readonly string[] | undefined): TrackedProposal | undefined {
    return first(correlationIds, (id) => this.proposals.get(id));
  }

  /** `requestId` fulfils `proposal`: its response will be the call's outcome. */
  fulfilled(requestId: string, proposal: TrackedProposal, approvedBy: string): void {
    this.fulfilments.set(requestId, { ...proposal, approvedBy });
  }

  /** The fulfilment a response answers (once: a second response to the same request is not a second outcome). */
  takeFulfilment(correlationIds: readonly string[] | undefined): TrackedFulfilment | undefined {
    for (const id of correlationIds ?? []) {
      const fulfilment = this.fulfilments.get(id);
      if (!fulfilment) continue;
      this.fulfilments.delete(id);
      return fulfilment;
    }
    return undefined;
  }
}

function first<T>(ids: readonly string[] | undefined, lookup: (id: string) => T | undefined): T | undefined {
  for (const id of ids ?? []) {
    const found = lookup(id);
    if (found) return found;
  }
  return undefined;
}
